/**
 * Every error the gateway itself answers with comes from this catalog, so status, code and body shape
 * cannot drift between components. The body is the contract's `{"error":{"code","message","type":"error"}}`.
 */
import { type ServerResponse } from 'node:http';

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers, e.g. `Retry-After`. */
    readonly headers: Readonly<Record<string, string>> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'GatewayError';
  }

  /** The contract's error object, `{code, message, type: "error"}`. */
  object(): { code: string; message: string; type: 'error' } {
    return { code: this.code, message: this.message, type: 'error' };
  }

  /** The same error told in other words (a field named as the client's API names it). */
  withMessage(message: string): GatewayError {
    return message === this.message
      ? this
      : new GatewayError(this.status, this.code, message, this.headers, { cause: this });
  }

  /** The contract's error body. */
  body(): string {
    return JSON.stringify({ error: this.object() });
  }
}

/** A client-supplied value quoted in a message, cut short: an error body never echoes a megabyte back. */
const clip = (value: string): string => (value.length > 200 ? `${value.slice(0, 200)}…` : value);

const describeEndpoints = (endpoints: readonly string[]): string =>
  endpoints.length ? `; it is served on ${endpoints.join(', ')}` : '';

export const Errors = {
  unauthorized: () => new GatewayError(401, 'unauthorized', 'unauthorized'),
  keyDisabled: () => new GatewayError(403, 'key_disabled', 'this API key is disabled'),
  modelNotAllowed: (model: string) =>
    new GatewayError(403, 'model_not_allowed', `this API key may not use model '${clip(model)}'`),
  teamModelNotAllowed: (model: string) =>
    new GatewayError(403, 'model_not_allowed', `this API key's team may not use model '${clip(model)}'`),
  /** The key names a team that does not exist (deleted under it, or a declared key's typo): fail closed. */
  keyTeamMissing: () =>
    new GatewayError(
      403,
      'team_not_found',
      "this API key's team does not exist; an operator must move the key to a team that does",
    ),
  notFound: (method: string, path: string) =>
    new GatewayError(404, 'not_found', `no endpoint ${clip(method)} ${clip(path)}`),
  methodNotAllowed: (method: string, path: string, allowed: readonly string[]) =>
    new GatewayError(405, 'method_not_allowed', `${clip(method)} is not allowed on ${clip(path)}`, {
      allow: allowed.join(', '),
    }),
  modelNotFound: (model: string, endpoint: string, servedOn: readonly string[]) =>
    new GatewayError(
      404,
      'model_not_found',
      servedOn.length
        ? `model '${model}' is not served on ${endpoint}${describeEndpoints(servedOn)}`
        : `model '${clip(model)}' does not exist on this gateway`,
    ),
  invalidJson: (reason: string) =>
    new GatewayError(400, 'invalid_json', `the request body is not valid JSON: ${reason}`),
  invalidRequest: (message: string) => new GatewayError(400, 'invalid_request', message),
  duplicateKey: (key: string) =>
    new GatewayError(
      400,
      'invalid_json',
      `the request body repeats the key '${key}': a key may appear once in an object`,
    ),
  forbiddenKey: (key: string) =>
    new GatewayError(400, 'invalid_request', `the key '${key}' is not allowed in a request body`),
  jsonTooDeep: (limit: number) =>
    new GatewayError(400, 'invalid_request', `the request body is nested deeper than ${limit} levels`),
  /** A body field some upstreams or SDKs read as a destination or a credential. */
  forbiddenField: (field: string) =>
    new GatewayError(
      400,
      'invalid_request',
      `field '${field}' is not accepted: the gateway chooses the upstream and its credentials`,
    ),
  /** `form` narrows which use of the field is refused, e.g. `as an array`. */
  unsupportedField: (field: string, model: string, form?: string) =>
    new GatewayError(
      400,
      'unsupported_field',
      `field '${field}'${form ? ` ${form}` : ''} is not supported by model '${model}'`,
    ),
  overCeiling: (field: string, ceiling: number, model: string) =>
    new GatewayError(
      400,
      'invalid_request',
      `field '${field}' must be at most ${ceiling} for model '${model}'`,
    ),
  invalidHeader: (name: string, expected: string, got: string | undefined) =>
    new GatewayError(
      400,
      'invalid_request',
      got === undefined
        ? `header '${name}' is required and must be ${expected}`
        : `header '${name}' must be ${expected}, got '${got}'`,
    ),
  bodyTooLarge: (limit: number) =>
    new GatewayError(413, 'request_too_large', `the request body is larger than ${limit} bytes`, {
      connection: 'close',
    }),
  bodyTimeout: () =>
    new GatewayError(408, 'request_timeout', 'the request body did not arrive in time', {
      connection: 'close',
    }),
  bodyDeadline: (ms: number) =>
    new GatewayError(408, 'request_timeout', `the request body did not arrive within ${ms / 1000} s`, {
      connection: 'close',
    }),
  /** The client went away mid-request (nginx's 499): nobody reads this answer; it is logged and metered. */
  clientClosed: () =>
    new GatewayError(
      499,
      'client_closed_request',
      'the client closed the connection before the request was complete',
    ),
  headersTimeout: () =>
    new GatewayError(408, 'request_timeout', 'the request headers did not arrive in time', {
      connection: 'close',
    }),
  headersTooLarge: () =>
    new GatewayError(431, 'request_header_fields_too_large', 'the request headers are too large', {
      connection: 'close',
    }),
  /** A field of an admin request body (dotted path) with a bad value. */
  invalidField: (field: string, expected: string) =>
    new GatewayError(400, 'invalid_request', `field '${clip(field)}' must be ${expected}`),
  unknownField: (field: string) => new GatewayError(400, 'invalid_request', `unknown field '${clip(field)}'`),
  invalidQuery: (name: string, expected: string) =>
    new GatewayError(400, 'invalid_request', `query parameter '${clip(name)}' must be ${expected}`),
  keyNotFound: (id: string) => new GatewayError(404, 'key_not_found', `no key with id ${clip(id)}`),
  /** An admin call the caller's role may not make; `needs` says which roles may. */
  forbidden: (needs: string) => new GatewayError(403, 'forbidden', `forbidden: ${needs}`),
  adminTokenNotFound: (id: string) =>
    new GatewayError(404, 'token_not_found', `no admin token with id ${clip(id)}`),
  bootstrapToken: () =>
    new GatewayError(
      409,
      'token_bootstrap',
      'the bootstrap token comes from GATEWAY_ADMIN_TOKEN or the data directory; change it there',
    ),
  teamNotFound: (id: string) => new GatewayError(404, 'team_not_found', `no team with id ${clip(id)}`),
  teamNameTaken: (name: string) =>
    new GatewayError(409, 'team_name_taken', `another team is named '${clip(name)}'; team names are unique`),
  teamHasKeys: (id: string, keys: number) =>
    new GatewayError(
      409,
      'team_has_keys',
      `team ${clip(id)} has ${keys} key${keys === 1 ? '' : 's'}; move ${keys === 1 ? 'it' : 'them'} to another team ` +
        '(or remove their team_id) or delete them first',
    ),
  keyDeclared: (id: string) =>
    new GatewayError(409, 'key_declared', `key ${clip(id)} is declared in gateway.yaml; change it there`),
  storeUnavailable: (retryAfterSeconds: number, cause?: unknown) =>
    new GatewayError(
      503,
      'store_unavailable',
      'the gateway cannot reach its store in time; nothing was done, try again shortly',
      { 'retry-after': String(retryAfterSeconds) },
      { cause },
    ),
  configInvalid: (message: string) =>
    new GatewayError(422, 'config_invalid', `${message} (the running configuration still serves)`),
  reloadUnavailable: () =>
    new GatewayError(
      409,
      'reload_unavailable',
      'this gateway was not started from a configuration file, so there is nothing to reload',
    ),
  hostRequired: () => new GatewayError(400, 'invalid_request', 'an HTTP/1.1 request needs a Host header'),
  headersTooMany: (limit: number) =>
    new GatewayError(431, 'request_header_fields_too_large', `more than ${limit} request headers`, {
      connection: 'close',
    }),
  /** `whose`: which limit refused, when the message should say (`this API key's`, `the team's`). */
  rateLimited: (retryAfterSeconds: number, whose?: string) =>
    new GatewayError(
      429,
      'rate_limited',
      `${whose ? `${whose} ` : ''}rate limit reached; retry after ${retryAfterSeconds} s`,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  /**
   * A budget the call falls under is spent: the key's own, or its team's (`owner`, named in the message).
   * A monthly one names its reset, and `Retry-After` counts the seconds to it; a total one never resets
   * by itself (an operator must raise it), so its `Retry-After` is a day: when to look again, not a
   * promise. `x-should-retry: false` tells the vendors' SDKs not to retry at once.
   */
  budgetExhausted: (
    owner: 'key' | 'team',
    period: 'total' | 'month',
    resetsAt: string | undefined,
    retryAfterSeconds: number,
  ) => {
    const whose = owner === 'team' ? "this API key's team's" : "this API key's";
    return new GatewayError(
      429,
      'budget_exhausted',
      period === 'month' && resetsAt
        ? `${whose} monthly budget is spent; it resets at ${resetsAt}`
        : `${whose} budget is spent; it does not reset by itself: an operator must raise it`,
      { 'retry-after': String(retryAfterSeconds), 'x-should-retry': 'false' },
    );
  },
  /** Every upstream of the model is ejected for failing (core/routing/upstream-health.ts). */
  upstreamUnavailable: (model: string, retryAfterSeconds: number) =>
    new GatewayError(
      503,
      'upstream_unavailable',
      `every upstream of model '${model}' is failing and out of service; retry after ${retryAfterSeconds} s`,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  upstreamUnreachable: (upstream: string, cause?: unknown) =>
    new GatewayError(502, 'upstream_unreachable', `upstream ${upstream} could not be reached`, {}, { cause }),
  upstreamTimeout: (upstream: string, phase: string) =>
    new GatewayError(504, 'upstream_timeout', `upstream ${upstream} did not answer in time (${phase})`),
  upstreamResponseBroken: (upstream: string) =>
    new GatewayError(
      502,
      'upstream_error',
      `upstream ${upstream} closed the connection before its response was complete`,
    ),
  upstreamBadAnswer: (upstream: string, what: string) =>
    new GatewayError(502, 'upstream_error', `upstream ${upstream} sent ${what}`),
  streamCut: (upstream: string) =>
    new GatewayError(
      502,
      'upstream_stream_cut',
      `upstream ${upstream} ended the stream before it was complete`,
    ),
  streamIdle: (upstream: string, ms: number) =>
    new GatewayError(504, 'upstream_stream_idle', `upstream ${upstream} sent nothing for ${ms / 1000} s`),
  taskNotFound: (id: string) => new GatewayError(404, 'task_not_found', `no task with id '${clip(id)}'`),
  idempotencyConflict: (key: string) =>
    new GatewayError(
      409,
      'idempotency_key_reused',
      `Idempotency-Key '${key}' was already used with another request body`,
    ),
  synchronousNotSupported: (header: string, value: string) =>
    new GatewayError(
      400,
      'invalid_request',
      `synchronous calls are not supported: send the header '${header}: ${value}'`,
    ),
  usageBacklog: (retryAfterSeconds: number) =>
    new GatewayError(
      503,
      'usage_backlog',
      `usage cannot be recorded right now, so no new billable call is started; retry after ${retryAfterSeconds} s`,
      { 'retry-after': String(retryAfterSeconds) },
    ),
  /** A guardrail stopped the request: `why` names it (and a webhook's reason); the upstream was not called. */
  contentFilter: (why: string) => new GatewayError(400, 'content_filter', clip(why)),
  /** A guardrail's check could not be made and its policy is to refuse rather than let the call through. */
  guardrailUnavailable: (name: string) =>
    new GatewayError(
      503,
      'guardrail_unavailable',
      `the guardrail '${name}' could not check this request; try again shortly`,
    ),
  /** A console session cookie that was altered, has expired or was signed out (core/admin/sso/). */
  sessionInvalid: () =>
    new GatewayError(
      401,
      'unauthorized',
      'the console session is not valid (altered, expired or signed out); sign in again',
    ),
  /** A changing call on a console session without its CSRF token, or from another origin. */
  csrfFailed: (reason: string) => new GatewayError(403, 'csrf_failed', reason),
  /** Single sign-on could not complete: a stale or forged callback, or the provider's refusal. */
  signInFailed: (reason: string) =>
    new GatewayError(400, 'sign_in_failed', `single sign-on did not complete: ${clip(reason)}`),
  /** The provider vouched for the person, but `console.oidc.roles` gives them no role. */
  signInRefused: (who: string, claim: string) =>
    new GatewayError(
      403,
      'sign_in_refused',
      `${clip(who)} is not allowed in the console: no entry of console.oidc.roles matches their '${claim}' claim`,
    ),
  identityProviderUnavailable: (cause?: unknown) =>
    new GatewayError(
      502,
      'identity_provider_unavailable',
      'the identity provider could not be reached; try again shortly',
      {},
      { cause },
    ),
  shuttingDown: () =>
    new GatewayError(503, 'shutting_down', 'the gateway is shutting down', { connection: 'close' }),
  internal: (cause?: unknown) =>
    new GatewayError(500, 'internal_error', 'internal gateway error', {}, { cause }),
} as const;

/** Normalises anything thrown into a GatewayError; unknown errors become a 500 that does not leak details. */
export function toGatewayError(e: unknown): GatewayError {
  return e instanceof GatewayError ? e : Errors.internal(e);
}

/**
 * Writes the error response, unless the response has already begun (then the caller ends it otherwise).
 * `replyHeaders`: what the request's stages added for every answer (GatewayContext#replyHeaders).
 */
export function sendError(
  res: ServerResponse,
  error: GatewayError,
  requestId: string,
  replyHeaders?: Record<string, string>,
): void {
  if (res.headersSent) return;
  const body = error.body();
  res.writeHead(error.status, {
    ...replyHeaders,
    ...error.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  res.end(body);
}
