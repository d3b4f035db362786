/** The batch API's own refusals, in the contract's error body. */
import { GatewayError } from '../../../core/kit/plugin';

const clip = (text: string): string => (text.length > 100 ? `${text.slice(0, 100)}…` : text);

export const BatchErrors = {
  fileNotFound: (id: string) => new GatewayError(404, 'file_not_found', `no file with id '${clip(id)}'`),
  batchNotFound: (id: string) => new GatewayError(404, 'batch_not_found', `no batch with id '${clip(id)}'`),
  /** A line of an uploaded file that is not a request the gateway could send; lines count from 1. */
  badLine: (line: number, problem: string) =>
    new GatewayError(400, 'invalid_request', `line ${line}: ${problem}`),
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
  /** The upload itself is not what `POST /v1/files` takes. */
  badUpload: (problem: string) => new GatewayError(400, 'invalid_request', problem),
};
