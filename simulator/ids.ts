import { randomInt, randomUUID } from 'node:crypto';
import { beijingStamp } from './tasks/vendor-clock';

// randomUUID draws from a pre-filled entropy cache, so it stays cheap at thousands of calls a second.
const hex = (): string => randomUUID().replaceAll('-', '');

/** The simulator's own request id, in OpenAI's `req_<hex>` style. */
export const newRequestId = (): string => `req_${hex()}`;

/** A completion id, `chatcmpl-<random>`. */
export const newCompletionId = (): string => `chatcmpl-${hex().slice(0, 24)}`;

/** A tool-call id, `call_<random>`. */
export const newCallId = (): string => `call_${hex().slice(0, 24)}`;

/** A Responses API object id, `<prefix>_<random>` (`resp`, and `msg`, `fc` for its output items). */
export const newResponsesId = (prefix: 'resp' | 'msg' | 'fc'): string =>
  `${prefix}_${hex()}${hex().slice(0, 18)}`;

/** A Messages reply id, `msg_<random>`. */
export const newMessageId = (): string => `msg_${hex().slice(0, 24)}`;

/** A Messages tool-use block id, `toolu_<random>`. */
export const newToolUseId = (): string => `toolu_${hex().slice(0, 24)}`;

/** An OpenAI file id, `file-<random>`. */
export const newFileId = (): string => `file-${hex().slice(0, 22)}`;

/** An OpenAI batch id, `batch_<random>`. */
export const newBatchId = (): string => `batch_${hex()}`;

/** The id of one line's answer in an OpenAI batch's output, `batch_req_<random>`. */
export const newBatchRequestId = (): string => `batch_req_${hex()}`;

/** An Anthropic message batch id, `msgbatch_<random>`. */
export const newMessageBatchId = (): string => `msgbatch_${hex().slice(0, 24)}`;

/** Unix seconds, the `created` field of completions. */
export const unixSeconds = (): number => Math.floor(Date.now() / 1000);

/** A DashScope task id: a bare UUID. */
export const newUuidTaskId = (): string => randomUUID();

const ID_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** An Ark content-generation task id, `cgt-<Beijing yyyyMMddHHmmss>-<5 random characters>`. */
export function newContentTaskId(now: number): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += ID_CHARS.charAt(randomInt(ID_CHARS.length));
  return `cgt-${beijingStamp(now)}-${suffix}`;
}
