import { SimError, statusDefaults, type StatusCatalog } from '../sim-error';

/** The type, code and default message of one status. */
interface ArkDefaults {
  readonly type: string;
  readonly code: string;
  readonly message: string;
}

const INVALID: ArkDefaults = {
  type: 'BadRequest',
  code: 'InvalidParameter',
  message: 'A parameter specified in the request is not valid.',
};
const INTERNAL: ArkDefaults = {
  type: 'InternalServerError',
  code: 'InternalServiceError',
  message: 'The service encountered an unexpected internal error.',
};

// Ark's types (HTTP reason words) and codes per status (docs/upstreams.md#videob).
const ERRORS: StatusCatalog<ArkDefaults> = {
  400: INVALID,
  401: {
    type: 'Unauthorized',
    code: 'AuthenticationError',
    message: 'The API key in the request is missing or invalid.',
  },
  403: {
    type: 'Forbidden',
    code: 'AccessDenied',
    message: 'The request failed because you do not have access to the requested resource.',
  },
  404: {
    type: 'NotFound',
    code: 'InvalidEndpointOrModel.NotFound',
    message: 'The model or endpoint does not exist or you do not have access to it.',
  },
  413: { ...INVALID, message: 'The request body is too large.' },
  429: {
    type: 'TooManyRequests',
    code: 'RateLimitExceeded.EndpointRPMExceeded',
    message: 'The request has exceeded the rate limit of requests per minute.',
  },
  500: INTERNAL,
  503: {
    type: 'ServiceUnavailable',
    code: 'ServerOverloaded',
    message: 'The service is currently unable to handle additional requests due to server overload.',
  },
};

/**
 * The vendor's error body, `{error:{code, message, param?, type}}`. Ark has no request id field:
 * it ends the message with one, so the simulator's id goes there.
 */
export function errorBody(err: SimError, simId: string): unknown {
  const d = statusDefaults(ERRORS, err.status);
  const message = `${err.detail.message ?? d.message} Request id: ${simId}`;
  const param = err.detail.param === undefined ? {} : { param: err.detail.param };
  return { error: { code: err.detail.code ?? d.code, message, ...param, type: d.type } };
}

/** A 400 `InvalidParameter` naming the parameter at fault, e.g. `content[0].text`. */
export const invalidParameter = (param: string, why: string): SimError =>
  new SimError(400, {
    code: 'InvalidParameter',
    message: `The parameter \`${param}\` specified in the request is not valid: ${why}.`,
    param,
  });

/** A 400 `MissingParameter` naming the parameter left out. */
export const missingParameter = (param: string): SimError =>
  new SimError(400, {
    code: 'MissingParameter',
    message: `The request failed because it is missing one or multiple required parameters: \`${param}\`.`,
    param,
  });

/** The 404 for a task id this family never issued. */
export const taskNotFound = (id: string): SimError =>
  new SimError(404, { code: 'ResourceNotFound', message: `The specified task ${id} is not found.` });
