/** Ids of the gateway's own files and batches: unguessable, in OpenAI's forms. */
import { createHash, randomBytes } from 'node:crypto';

export const newFileId = (): string => `file-${randomBytes(16).toString('hex')}`;
export const newBatchId = (): string => `batch_${randomBytes(16).toString('hex')}`;
export const newMessageBatchId = (): string => `msgbatch_${randomBytes(16).toString('hex')}`;

/**
 * The id of a file a batch writes (`output` or `error`): the same on every try, so a finalize that
 * died after storing it finds it stored instead of writing a second one.
 */
export const batchFileId = (batchId: string, which: 'output' | 'error'): string =>
  `file-${createHash('sha256').update(`${batchId}\u0000${which}`).digest('hex').slice(0, 32)}`;
