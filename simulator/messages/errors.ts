import { SimErrors, type SimError, statusDefaults, type StatusCatalog } from '../sim-error';

/** The `error` object of the vendor's error body and stream error event. */
interface ErrorObject {
  readonly type: string;
  readonly message: string;
}

const INVALID: ErrorObject = {
  type: 'invalid_request_error',
  message: 'There was an issue with your request.',
};
const API_ERROR: ErrorObject = {
  type: 'api_error',
  message: 'An unexpected error has occurred internal to the systems.',
};

// The vendor's type per HTTP status, with messages after its error documentation.
const ERRORS: StatusCatalog<ErrorObject> = {
  400: INVALID,
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  402: { type: 'billing_error', message: 'Your credit balance is too low to access the API.' },
  403: {
    type: 'permission_error',
    message: 'Your API key does not have permission to use the specified resource.',
  },
  404: { type: 'not_found_error', message: 'The requested resource was not found.' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Your account has hit a rate limit.' },
  500: API_ERROR,
  504: { type: 'timeout_error', message: 'Request timed out.' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

/** The type for the status (other 5xx `api_error`, other 4xx `invalid_request_error`), the error's own message first. */
function errorObject(err: SimError): ErrorObject {
  const d = statusDefaults(ERRORS, err.status);
  return { type: d.type, message: err.detail.message ?? d.message };
}

/** The vendor's error body: `{type:"error", error:{type, message}, request_id}`. */
export const errorBody = (err: SimError, simId: string): unknown => ({
  type: 'error',
  error: errorObject(err),
  request_id: simId,
});

/** The payload of the in-stream `error` event that `error_after` sends: the vendor's overload. */
export const streamError = (): { readonly type: 'error'; readonly error: ErrorObject } => ({
  type: 'error',
  error: errorObject(SimErrors.status(529)),
});
