import { SimError, SimErrors } from '../sim-error';

/** An id this family never issued: 404, naming it. */
export const noSuchBatch = (id: string): SimError =>
  new SimError(404, { message: `No batch found with id '${id}'.`, code: null });

/** A create whose input file this family never issued. */
export const noInputFile = (id: string): SimError =>
  SimErrors.invalidParam('input_file_id', `Invalid 'input_file_id': no file with id '${id}'.`);

/** A create whose input file was not uploaded for batches. */
export const notBatchFile = (id: string, purpose: string): SimError =>
  SimErrors.invalidParam(
    'input_file_id',
    `Invalid 'input_file_id': file '${id}' has purpose '${purpose}'; a batch's input must have purpose 'batch'.`,
  );

/** A cancel of a batch that already ended: the vendor's 409, word for word. */
export const cannotCancel = (status: string): SimError =>
  new SimError(409, { message: `Cannot cancel a batch with status '${status}'.`, code: null });
