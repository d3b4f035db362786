/**
 * The two routes of a video task protocol: submit (routed by model, like the other model APIs) and query
 * (which reads the store only, never the upstream). A task is visible only to the key that submitted it,
 * through the protocol it was submitted by; anything else is answered as a task that does not exist.
 */
import { Errors } from '../base/errors';
import { globMatch } from '../base/glob';
import type { TaskStore } from '../stores/task-store';
import type { TaskProtocol } from './protocol';
import type { TaskSubmission } from './submission';
import type { Endpoint } from '../request/served-request';
import { replyJson } from '../http/json-reply';

export function taskEndpoints(
  name: string,
  protocol: TaskProtocol,
  submission: TaskSubmission,
  store: TaskStore,
): Endpoint[] {
  const submit: Endpoint = {
    id: `video.${name}.submit`,
    method: 'POST',
    path: protocol.submitPath,
    routedByModel: true,
    serves: (model) => model.api.kind === 'task' && protocol.models.some((p) => globMatch(p, model.id)),
    handle: (ctx) => submission.submit(ctx, protocol, name),
  };
  const query: Endpoint = {
    id: `video.${name}.query`,
    method: 'GET',
    path: protocol.queryPath,
    routedByModel: false,
    async handle(ctx) {
      const id = ctx.params.id ?? '';
      const task = await store.get(id);
      if (!task || task.key_id !== (ctx.key?.id ?? null) || task.protocol !== name)
        throw Errors.taskNotFound(id);
      replyJson(ctx, 200, protocol.queried(task, ctx.requestId));
    },
  };
  return [submit, query];
}
