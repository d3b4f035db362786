import { readControls } from '../controls';
import type { Exchange } from '../exchange';
import { SimErrors } from '../sim-error';
import { phaseAt, planTask, pollFate, type SimTask, type TaskPhase, type VideoSpec } from './timeline';
import { videoUrl } from './video-file';

/** What a family's submit route has validated, and how it names tasks. */
export interface TaskRequest {
  /** A fresh upstream id in the vendor's format (Ark's have only five random characters). */
  readonly newId: () => string;
  readonly model: string;
  /** Where `#sim` directives live. */
  readonly prompt: string;
  readonly video: VideoSpec;
}

/** What a poll finds: nothing (an id this family never issued), or the task and its phase now. */
export type PollAnswer =
  | { readonly found: false }
  | {
      readonly found: true;
      readonly task: SimTask;
      readonly phase: TaskPhase;
      /** True while the task's `unknown_polls` last; families without such an answer ignore it. */
      readonly unknown: boolean;
    };

const NOT_FOUND: PollAnswer = { found: false };

/**
 * The submit steps both video families share, after their own validation: the controls (from
 * the prompt and headers), latency, then a forced status, then the task. Resolves null when the
 * client went away during the latency.
 * @throws SimError for an invalid control or the `status` control.
 */
export async function submitTask(ex: Exchange, req: TaskRequest): Promise<SimTask | null> {
  const controls = readControls(ex.req.headers, req.prompt);
  if (controls.latencyMs && !(await ex.delay(controls.latencyMs))) return null;
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  let id = req.newId();
  while (ex.tasks.has(id)) id = req.newId();
  return ex.tasks.submit({
    family: ex.family.name,
    id,
    model: req.model,
    video: req.video,
    plan: planTask(controls),
    submittedAt: ex.tasks.now(),
    videoUrl: videoUrl(ex.req, id),
  });
}

/**
 * The poll steps both video families share: count the poll (it stays in flight until the
 * response closes), wait the task's `poll_latency_ms`, fail the first `poll_errors` polls.
 * Resolves null when the client went away during the latency.
 * @throws SimError 500 for the task's first `poll_errors` polls.
 */
export async function acceptPoll(ex: Exchange, id: string): Promise<PollAnswer | null> {
  const poll = ex.tasks.beginPoll(ex.family.name, id);
  ex.onClose(poll.end);
  const { task } = poll;
  if (!task) return NOT_FOUND;
  if (task.plan.pollLatencyMs > 0 && !(await ex.delay(task.plan.pollLatencyMs))) return null;
  const fate = pollFate(task.plan, poll.number);
  if (fate === 'error') throw SimErrors.pollFailed();
  return { found: true, task, phase: phaseAt(task, ex.tasks.now()), unknown: fate === 'unknown' };
}
