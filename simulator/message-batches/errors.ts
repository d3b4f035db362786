import { SimError } from '../sim-error';

/** An id this family never issued (or deleted). */
export const noSuchBatch = (id: string): SimError =>
  new SimError(404, { message: `Message Batch not found: ${id}` });

/** Results asked for before processing ended (the SDK itself refuses while `results_url` is null). */
export const stillProcessing = (id: string): SimError =>
  new SimError(400, {
    message: `Message Batch ${id} has not finished processing; its results are available once it has ended.`,
  });

/** A delete of a batch still processing: the vendor deletes ended batches only. */
export const deleteWhileProcessing = (id: string): SimError =>
  new SimError(400, {
    message: `Message Batch ${id} cannot be deleted while it is processing; cancel it first.`,
  });

/** A cancel of a batch whose processing already ended. */
export const cannotCancel = (id: string): SimError =>
  new SimError(400, { message: `Message Batch ${id} has already ended and cannot be canceled.` });
