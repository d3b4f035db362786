import type { SimTask, TaskPhase } from '../tasks/timeline';
import { phaseStart } from '../tasks/timeline';

// Seedance renders 24 frames a second; each frame of a resolution costs about its pixels / 1,024 tokens.
const FRAMES_PER_SECOND = 24;
const TOKENS_PER_FRAME: Readonly<Record<string, number>> = { '480p': 400, '720p': 900, '1080p': 2025 };

/** What a failed task reports in `error`. */
const FAILURE = {
  code: 'InternalServiceError',
  message:
    'The service encountered an unexpected internal error while generating the video (simulated failure).',
};

/**
 * Billed tokens: seconds × frames a second × tokens a frame, so a 5 s 720p video costs 108,000
 * (about what the vendor bills). Input is free: completion and total are equal.
 */
function usage(task: SimTask): Record<string, number> {
  const { duration, resolution } = task.video;
  const tokens = duration * FRAMES_PER_SECOND * (TOKENS_PER_FRAME[resolution] ?? 0);
  return { completion_tokens: tokens, total_tokens: tokens };
}

/** The fields each phase sets after `status`; the simulator's phase words are Ark's status words. */
const EXTRAS: Readonly<Record<TaskPhase, (task: SimTask) => Record<string, unknown>>> = {
  queued: () => ({}),
  running: () => ({}),
  succeeded: (t) => ({ content: { video_url: t.videoUrl }, usage: usage(t) }),
  failed: () => ({ error: FAILURE }),
  cancelled: () => ({}),
};

const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** The submit answer: exactly `{id}`. */
export const submittedBody = (task: SimTask): unknown => ({ id: task.id });

/** The poll answer: the task's options and times, the video and usage once succeeded, `error` once failed. */
export function taskBody(task: SimTask, phase: TaskPhase): unknown {
  const { resolution, ratio, duration } = task.video;
  return {
    id: task.id,
    model: task.model,
    status: phase,
    error: null,
    ...EXTRAS[phase](task),
    created_at: unixSeconds(task.submittedAt),
    updated_at: unixSeconds(phaseStart(task, phase)),
    resolution,
    ratio,
    duration,
    framespersecond: FRAMES_PER_SECOND,
  };
}
