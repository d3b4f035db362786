import type { Exchange } from '../exchange';
import { newContentTaskId } from '../ids';
import { acceptPoll, submitTask } from '../tasks/task-exchange';
import { taskNotFound } from './errors';
import { parseVideobRequest } from './request';
import { submittedBody, taskBody } from './task-body';

/** `POST /api/v3/contents/generations/tasks`: the body, then the shared submit steps; answers `{id}`. */
export async function submitVideob(ex: Exchange): Promise<void> {
  const req = parseVideobRequest(ex.body);
  const task = await submitTask(ex, { newId: () => newContentTaskId(ex.tasks.now()), ...req });
  if (task) ex.sendJson(200, submittedBody(task));
}

/**
 * `GET /api/v3/contents/generations/tasks/{id}`: the task, or a 404 for ids it never issued. Ark
 * has no "unknown yet" answer, so `unknown_polls` does not apply here.
 */
export async function pollVideob(ex: Exchange): Promise<void> {
  const id = ex.params.id ?? '';
  const poll = await acceptPoll(ex, id);
  if (!poll) return;
  if (!poll.found) throw taskNotFound(id);
  ex.sendJson(200, taskBody(poll.task, poll.phase));
}
