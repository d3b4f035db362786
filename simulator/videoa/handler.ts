import type { IncomingHttpHeaders } from 'node:http';
import type { Exchange } from '../exchange';
import { newUuidTaskId } from '../ids';
import { acceptPoll, submitTask } from '../tasks/task-exchange';
import { synchronousCall } from './errors';
import { parseVideoaRequest } from './request';
import { submittedBody, taskBody, unknownTaskBody } from './task-body';

/** Where the vendor has `X-DashScope-Async`; over HTTP the endpoint is async only. */
const ASYNC_HEADER = 'x-nativea-async';

/** @throws SimError 403 unless the request asks for the asynchronous call. */
function checkAsync(headers: IncomingHttpHeaders): void {
  if (headers[ASYNC_HEADER] !== 'enable') throw synchronousCall();
}

/**
 * `POST …/video-synthesis`: the async header (checked after auth), the body, then the shared
 * submit steps. Answers at once with the new task, `PENDING`.
 */
export async function submitVideoa(ex: Exchange): Promise<void> {
  checkAsync(ex.req.headers);
  const req = parseVideoaRequest(ex.body);
  const task = await submitTask(ex, { newId: newUuidTaskId, ...req });
  if (task) ex.sendJson(200, submittedBody(task, ex.entry.id));
}

/** `GET /api/v1/tasks/{task_id}`: always HTTP 200 (bar `poll_errors`); `UNKNOWN` for ids it never issued. */
export async function pollVideoa(ex: Exchange): Promise<void> {
  const id = ex.params.task_id ?? '';
  const poll = await acceptPoll(ex, id);
  if (!poll) return;
  if (!poll.found || poll.unknown) return ex.sendJson(200, unknownTaskBody(id, ex.entry.id));
  ex.sendJson(200, taskBody(poll.task, poll.phase, ex.entry.id));
}
