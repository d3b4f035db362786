import type { SimTask, TaskPhase } from '../tasks/timeline';
import { phaseStart } from '../tasks/timeline';
import { beijingTime } from '../tasks/vendor-clock';
import { RESOLUTIONS } from './request';

/** The vendor's `task_status` words. */
const STATUS: Readonly<Record<TaskPhase, string>> = {
  queued: 'PENDING',
  running: 'RUNNING',
  succeeded: 'SUCCEEDED',
  failed: 'FAILED',
  cancelled: 'CANCELED',
};

/** What a failed task reports, flat inside `output`. */
const FAILURE = {
  code: 'InternalError.Algo',
  message: 'An internal error occurred while the algorithm processed the task (simulated failure).',
};

const time = (task: SimTask, phase: TaskPhase): string => beijingTime(phaseStart(task, phase));

/** The fields each phase adds to `output` after `task_id`, `task_status` and `submit_time`. */
const OUTPUT_EXTRAS: Readonly<Record<TaskPhase, (task: SimTask) => Record<string, unknown>>> = {
  queued: () => ({}),
  running: (t) => ({ scheduled_time: time(t, 'running') }),
  succeeded: (t) => ({
    scheduled_time: time(t, 'running'),
    end_time: time(t, 'succeeded'),
    video_url: t.videoUrl,
  }),
  failed: (t) => ({ scheduled_time: time(t, 'running'), end_time: time(t, 'failed'), ...FAILURE }),
  cancelled: (t) => ({ scheduled_time: time(t, 'running'), end_time: time(t, 'cancelled') }),
};

/** The submit answer: the new task, always `PENDING`. */
export const submittedBody = (task: SimTask, requestId: string): unknown => ({
  output: { task_id: task.id, task_status: STATUS.queued },
  request_id: requestId,
});

/** The poll answer for an id the vendor does not know (never issued, or expired): HTTP 200, `UNKNOWN`. */
export const unknownTaskBody = (id: string, requestId: string): unknown => ({
  request_id: requestId,
  output: { task_id: id, task_status: 'UNKNOWN' },
});

/** The poll answer: status and times, the video and `usage` once it succeeded, `code`/`message` once failed. */
export function taskBody(task: SimTask, phase: TaskPhase, requestId: string): unknown {
  const output = {
    task_id: task.id,
    task_status: STATUS[phase],
    submit_time: time(task, 'queued'),
    ...OUTPUT_EXTRAS[phase](task),
  };
  if (phase !== 'succeeded') return { request_id: requestId, output };
  const { duration, resolution } = task.video;
  const usage = { video_duration: duration, video_count: 1, SR: RESOLUTIONS[resolution] };
  return { request_id: requestId, output, usage };
}
