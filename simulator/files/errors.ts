import { SimError, SimErrors } from '../sim-error';

/** An id this family never issued (or deleted): 404, naming it. */
export const noSuchFile = (id: string): SimError =>
  new SimError(404, { message: `No such File object: ${id}`, code: null, param: 'id' });

/** A body that is not a multipart/form-data form (or is cut short): 400, saying why. */
export const badForm = (why: string): SimError =>
  new SimError(400, {
    message: `The request is not a valid multipart/form-data upload (${why}).`,
    code: null,
  });

/** The simulator's files feed its batches only. */
export const unservedPurpose = (purpose: string): SimError =>
  SimErrors.invalidParam(
    'purpose',
    `Invalid value for 'purpose': ${JSON.stringify(purpose)}. The simulator takes files for 'batch' only.`,
  );

/** The vendor's refusal of a batch file that is not named `.jsonl`, word for word. */
export const notJsonl = (): SimError =>
  new SimError(400, { message: 'Invalid file format for Batch API. Must be .jsonl', code: null });
