/** The batch API's own refusals, in the contract's error body. */
import { GatewayError } from '../../../core/kit/plugin';

const clip = (text: string): string => (text.length > 100 ? `${text.slice(0, 100)}…` : text);

export const BatchErrors = {
  fileNotFound: (id: string) => new GatewayError(404, 'file_not_found', `no file with id '${clip(id)}'`),
  batchNotFound: (id: string) => new GatewayError(404, 'batch_not_found', `no batch with id '${clip(id)}'`),
  /** A request of a batch that the gateway could not send (`where`: `line 3`, `requests[2]`). */
  badLine: (where: string, problem: string) =>
    new GatewayError(400, 'invalid_request', `${where}: ${problem}`),
  fileTooLarge: (cap: number) =>
    new GatewayError(400, 'invalid_request', `the file is larger than ${cap} bytes (batches.max_file_size)`),
  tooManyLines: (cap: number) =>
    new GatewayError(400, 'invalid_request', `the file holds more than ${cap} requests (batches.max_lines)`),
  notCancellable: (id: string, status: string) =>
    new GatewayError(
      409,
      'batch_not_cancellable',
      `batch '${clip(id)}' is ${status}: it cannot be cancelled`,
    ),
  notEnded: (id: string) =>
    new GatewayError(400, 'invalid_request', `batch '${clip(id)}' has not ended: its results are not ready`),
  /** The upload itself is not what `POST /v1/files` takes. */
  badUpload: (problem: string) => new GatewayError(400, 'invalid_request', problem),
};
