/**
 * A whole upstream answer as a Response: each translator reads its answer into drafts of output items,
 * in the order the model produced them, and its finish; this gives the items their ids and statuses
 * (the last one `incomplete` when the answer was cut short) and the Response its usage, the gateway's.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { Usage } from '../../../core/kit/plugin';
import type { Finish } from './finish';
import { ResponseIds, type ItemKind } from './ids';
import type { ItemStatus } from './output-items';
import { responseObject, type ResponseEcho } from './response-object';
import { responsesUsage } from '../../../core/kit/upstream';

/** One output item before its id and status are known. */
export interface Draft {
  readonly kind: ItemKind;
  readonly build: (id: string, status: ItemStatus) => JsonObject;
}

/** What the upstream's answer says of itself. */
export interface AnswerHead {
  readonly id: unknown;
  /** The upstream's id prefix, which the Response's ids leave out (ids.ts). */
  readonly idPrefix: RegExp;
  /** Unix seconds, where the upstream says. */
  readonly created?: unknown;
}

/** The Response for an answer of `drafts` that ended as `finish`, metered as `usage`. */
export function responseOfDrafts(
  head: AnswerHead,
  drafts: readonly Draft[],
  finish: Finish,
  usage: Usage,
  echo: ResponseEcho,
): JsonObject {
  const ids = new ResponseIds(head.id, head.idPrefix);
  const output = drafts.map((draft, i) => {
    const last = i === drafts.length - 1;
    return draft.build(
      ids.item(draft.kind, i),
      last && finish.status === 'incomplete' ? 'incomplete' : 'completed',
    );
  });
  const now = Math.floor(Date.now() / 1000);
  return responseObject(
    {
      id: ids.response,
      createdAt: typeof head.created === 'number' ? head.created : now,
      status: finish.status,
      ...(finish.status === 'completed' ? { completedAt: now } : {}),
      incompleteDetails: finish.details,
      output,
      usage: responsesUsage(usage),
    },
    echo,
  );
}
