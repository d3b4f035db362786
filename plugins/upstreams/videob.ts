/**
 * `videob-*`: the Ark-style content-generation task API (docs/upstreams.md#videob). The body's `content` must hold
 * a text item; resolution and duration come from top-level fields or the prompt's inline flags
 * (`--resolution 720p --duration 5`, or `--rs`/`--dur`). Billing is in upstream tokens.
 * @example upstreams: { videob-main: { plugin: videob, base_url: https://ark.cn-beijing.volces.com/api/v3, api_key: "${VIDEOB_API_KEY}" } }
 */
import { Errors } from '../../core/kit/plugin';
import { isJsonObject, type JsonObject } from '../../core/kit/json';
import type { PollOutcome, TaskParams, TaskUsage } from '../../core/kit/task';
import { z } from 'zod';
import { checkParts, type PartTable } from '../apis/content-parts';
import { countOf, positiveIntField, textField } from './video-task/body-fields';
import { defineVideoFamily } from './video-task/define-video-family';
import type { VideoPaths } from './video-task/video-options';
import type { VideoFamilySpec } from './video-task/video-upstream';

type Reader = (answer: JsonObject) => PollOutcome;

const failure =
  (state: 'failed' | 'cancelled', fallbackCode: string): Reader =>
  (answer) => {
    const error = isJsonObject(answer.error) ? answer.error : {};
    return {
      state,
      error: {
        code: typeof error.code === 'string' ? error.code : fallbackCode,
        message:
          typeof error.message === 'string' ? error.message : `the upstream reports the task ${fallbackCode}`,
      },
    };
  };

/** `status` → what it means; `expired` (a task past its execution window) is a failure. */
const BY_STATUS: Readonly<Record<string, Reader>> = {
  queued: () => ({ state: 'queued' }),
  running: () => ({ state: 'running' }),
  succeeded: (answer) => {
    const url = isJsonObject(answer.content) ? answer.content.video_url : undefined;
    const tokens = isJsonObject(answer.usage) ? countOf(answer.usage.completion_tokens) : undefined;
    // What the vendor made, as its answer states it: per-second prices bill this, not what was asked.
    const usage: TaskUsage = {
      tokens,
      video_seconds: countOf(answer.duration),
      ...(typeof answer.resolution === 'string' ? { resolution: answer.resolution } : {}),
    };
    return typeof url === 'string' ? { state: 'succeeded', videoUrl: url, usage } : { state: 'unknown' };
  },
  failed: failure('failed', 'failed'),
  cancelled: failure('cancelled', 'cancelled'),
  expired: failure('failed', 'expired'),
};

const FLAGS: Readonly<Record<keyof TaskParams, RegExp>> = {
  resolution: /--(?:resolution|rs)\s+(\S+)/,
  duration_s: /--(?:duration|dur)\s+(\d+)/,
};

const url = z.looseObject({ url: z.string().min(1) });
/** `first_frame`, `last_frame`, `reference_image`, …: the vendor adds roles with its models. */
const ROLE = z.string().min(1);

/** The `content` items the vendor's API defines (docs/upstreams.md#videob), each with what it must carry. */
const CONTENT_ITEMS: PartTable = {
  text: z.looseObject({ text: z.string() }),
  image_url: z.looseObject({ image_url: url, role: ROLE.optional() }),
  video_url: z.looseObject({ video_url: url, role: ROLE.optional() }),
  audio_url: z.looseObject({ audio_url: url, role: ROLE.optional() }),
  draft_task: z.looseObject({ draft_task: z.looseObject({ id: z.string().min(1) }) }),
};

/** The prompt of the body: its first text item, once every item is checked. */
function promptOf(body: JsonObject): string {
  const items = Array.isArray(body.content) ? (body.content as unknown[]) : undefined;
  if (items) checkParts(items, CONTENT_ITEMS, 'content');
  const text = items?.find((i): i is JsonObject => isJsonObject(i) && i.type === 'text')?.text;
  if (typeof text !== 'string' || text.trim() === '') {
    throw Errors.invalidRequest(
      "field 'content' must be an array holding a text item with a non-empty 'text'",
    );
  }
  return text;
}

const FRAMES_PER_SECOND = 24;
const TOKENS_PER_FRAME: Readonly<Record<string, number>> = { '480p': 405, '720p': 900, '1080p': 2025 };

export const VIDEOB: VideoFamilySpec = {
  vendor: 'videob',
  models: ['videob-2-0-260128'],
  created: 1769558400,
  check(body) {
    const prompt = promptOf(body);
    // A top-level field wins over the prompt's flag, so a present one must be usable (1e400 is not).
    if (body.resolution != null) textField(body, 'resolution', 'resolution');
    if (body.duration != null) positiveIntField(body, 'duration', 'duration');
    const resolution =
      typeof body.resolution === 'string' ? body.resolution : FLAGS.resolution.exec(prompt)?.[1];
    const duration = countOf(body.duration) ?? Number(FLAGS.duration_s.exec(prompt)?.[1] ?? NaN);
    return {
      ...(resolution ? { resolution } : {}),
      ...(Number.isFinite(duration) ? { duration_s: duration } : {}),
    };
  },
  // The vendor's rule: 24 frames a second, a frame's pixels / 1,024 tokens (a 16:9 frame; the widest
  // ratio of a resolution has about as many pixels). An unknown resolution is priced as the largest.
  tokensFor: (seconds, resolution) =>
    seconds *
    FRAMES_PER_SECOND *
    (TOKENS_PER_FRAME[resolution?.toLowerCase() ?? ''] ?? TOKENS_PER_FRAME['1080p']!),
  paramFields: { duration_s: 'duration (or --duration)', resolution: 'resolution (or --resolution)' },
  // Seedance: 480p, 720p or 1080p, and 2 to 15 s across its generations.
  limits: { max_video_seconds: 15, video_resolutions: ['480p', '720p', '1080p'] },
  taskIdOf: (answer) => (isJsonObject(answer) && typeof answer.id === 'string' ? answer.id : undefined),
  read(answer) {
    const body = isJsonObject(answer) ? answer : {};
    const status = typeof body.status === 'string' ? body.status : '';
    return Object.hasOwn(BY_STATUS, status) ? BY_STATUS[status]!(body) : { state: 'unknown' };
  },
};

/** Where the vendor's task API lives under `base_url`, and the header only its submit needs. */
export const VIDEOB_PATHS: VideoPaths = {
  submit_path: '/contents/generations/tasks',
  task_path: '/contents/generations/tasks/{id}',
  submit_headers: {},
};

export const VideobUpstream = defineVideoFamily('videob', VIDEOB, VIDEOB_PATHS);
