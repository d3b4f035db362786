/**
 * `videoa-*`: the DashScope-style async video synthesis API (docs/upstreams.md#videoa). Submit needs the async
 * header (`X-nativea-Async: enable` here, `X-DashScope-Async` at the vendor); tasks are polled at
 * `/api/v1/tasks/{id}`; a failure arrives with HTTP 200 and `code`/`message` inside `output`.
 * @example upstreams: { videoa-main: { plugin: videoa, base_url: https://dashscope-intl.aliyuncs.com, api_key: "${VIDEOA_API_KEY}", submit_headers: { x-dashscope-async: enable } } }
 */
import { isJsonObject, type JsonObject } from '../../core/kit/json';
import type { PollOutcome, TaskUsage } from '../../core/kit/task';
import { countOf, objectField, positiveIntField, textField } from './video-task/body-fields';
import { defineVideoFamily } from './video-task/define-video-family';
import type { VideoPaths } from './video-task/video-options';
import type { VideoFamilySpec } from './video-task/video-upstream';

type Reader = (output: JsonObject, usage: JsonObject) => PollOutcome;

const failure =
  (state: 'failed' | 'cancelled'): Reader =>
  (output) => ({
    state,
    error: {
      code: typeof output.code === 'string' ? output.code : `task_${state}`,
      message: typeof output.message === 'string' ? output.message : `the upstream reports the task ${state}`,
    },
  });

/** The vendor's usage fields differ by model generation; the first one present wins. */
const videoSeconds = (usage: JsonObject): number | undefined =>
  countOf(usage.video_duration) ?? countOf(usage.output_video_duration) ?? countOf(usage.duration);

/** `SR`, the short side in pixels (a number, or a string in some models' answers), as a resolution name. */
function resolutionOf(usage: JsonObject): string | undefined {
  const sr = typeof usage.SR === 'string' ? Number(usage.SR) : usage.SR;
  return typeof sr === 'number' && Number.isInteger(sr) && sr > 0 ? `${sr}P` : undefined;
}

/** What the vendor says it made: per-second prices bill this, not what was asked. */
function madeOf(usage: JsonObject): TaskUsage {
  const resolution = resolutionOf(usage);
  return { video_seconds: videoSeconds(usage), ...(resolution ? { resolution } : {}) };
}

/** `task_status` → what it means. UNKNOWN (a task the vendor does not know, or expired) settles nothing. */
const BY_STATUS: Readonly<Record<string, Reader>> = {
  PENDING: () => ({ state: 'queued' }),
  RUNNING: () => ({ state: 'running' }),
  SUSPENDED: () => ({ state: 'running' }),
  SUCCEEDED: (output, usage) =>
    typeof output.video_url === 'string'
      ? { state: 'succeeded', videoUrl: output.video_url, usage: madeOf(usage) }
      : { state: 'unknown' },
  FAILED: failure('failed'),
  CANCELED: failure('cancelled'),
  UNKNOWN: () => ({ state: 'unknown' }),
};

export const VIDEOA: VideoFamilySpec = {
  vendor: 'videoa',
  models: ['videoa-1.1-t2v', 'videoa-1.1-i2v', 'videoa-1.0-t2v', 'videoa-1.0-r2v'],
  created: 1767225600,
  check(body) {
    textField(objectField(body, 'input'), 'prompt', 'input.prompt');
    const parameters = objectField(body, 'parameters');
    return {
      resolution: textField(parameters, 'resolution', 'parameters.resolution'),
      duration_s: positiveIntField(parameters, 'duration', 'parameters.duration'),
    };
  },
  paramFields: { duration_s: 'parameters.duration', resolution: 'parameters.resolution' },
  // The vendor's Wan models: 480P, 720P or 1080P, and at most 15 s (the 2.6 line; older ones less).
  limits: { max_video_seconds: 15, video_resolutions: ['480P', '720P', '1080P'] },
  taskIdOf: (answer) => {
    const output = isJsonObject(answer) ? answer.output : undefined;
    return isJsonObject(output) && typeof output.task_id === 'string' ? output.task_id : undefined;
  },
  read(answer) {
    const output = isJsonObject(answer) && isJsonObject(answer.output) ? answer.output : {};
    const usage = isJsonObject(answer) && isJsonObject(answer.usage) ? answer.usage : {};
    const status = typeof output.task_status === 'string' ? output.task_status : '';
    return (Object.hasOwn(BY_STATUS, status) ? BY_STATUS[status]! : BY_STATUS.UNKNOWN!)(output, usage);
  },
};

/** Where the vendor's task API lives under `base_url`, and the header only its submit needs. */
export const VIDEOA_PATHS: VideoPaths = {
  submit_path: '/api/v1/services/aigc/video-generation/video-synthesis',
  task_path: '/api/v1/tasks/{id}',
  submit_headers: { 'x-nativea-async': 'enable' },
};

export const VideoaUpstream = defineVideoFamily('videoa', VIDEOA, VIDEOA_PATHS);
