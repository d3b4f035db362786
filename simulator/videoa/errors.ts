import { SimError, statusDefaults, type StatusCatalog } from '../sim-error';

/** The code and default message of one status. */
interface CodeDefaults {
  readonly code: string;
  readonly message: string;
}

const INVALID: CodeDefaults = { code: 'InvalidParameter', message: 'The request parameter is invalid.' };
const INTERNAL: CodeDefaults = {
  code: 'InternalError',
  message: 'An internal error has occured, please try again later or contact service support.',
};

// DashScope's codes per HTTP status (docs/upstreams.md#videoa); 404 and 503 are not in its table.
const ERRORS: StatusCatalog<CodeDefaults> = {
  400: INVALID,
  401: { code: 'InvalidApiKey', message: 'Invalid API-key provided.' },
  403: { code: 'AccessDenied', message: 'Access denied.' },
  404: { code: 'NotFound', message: 'The requested resource was not found.' },
  408: { code: 'RequestTimeOut', message: 'Request timed out, please try again later.' },
  413: { code: 'BadRequest.TooLarge', message: 'The request body is too large.' },
  429: { code: 'Throttling', message: 'Requests throttling triggered.' },
  500: INTERNAL,
  503: { code: 'ServiceUnavailable', message: 'The service is temporarily unavailable.' },
};

/** The vendor's non-2xx body, `{request_id, code, message}`; the error's own code and message win. */
export function errorBody(err: SimError, simId: string): unknown {
  const d = statusDefaults(ERRORS, err.status);
  return { request_id: simId, code: err.detail.code ?? d.code, message: err.detail.message ?? d.message };
}

/** A 400 `InvalidParameter` naming the field at fault, e.g. `input.prompt`. */
export const invalidParameter = (field: string, why: string): SimError =>
  new SimError(400, { code: 'InvalidParameter', message: `${field}: ${why}`, param: field });

/**
 * A submit without `X-nativea-Async: enable`. The vendor serves video synthesis only as a task and
 * answers a synchronous call with 403 `AccessDenied` (not a 400: the call is refused, not invalid).
 */
export const synchronousCall = (): SimError =>
  new SimError(403, { code: 'AccessDenied', message: 'current user api does not support synchronous calls' });
