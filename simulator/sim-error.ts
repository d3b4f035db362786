/**
 * Errors the simulator answers with. Each family renders a SimError in its vendor's body shape,
 * so handlers throw these and never format error bodies themselves.
 */

/** Details that override a family's defaults for the status. */
export interface SimErrorDetail {
  /** Replaces the family's default message for the status. */
  readonly message?: string;
  /** Replaces the family's default code (families whose codes are strings); null for none. */
  readonly code?: string | null;
  /** The request parameter at fault, where the vendor reports one. */
  readonly param?: string;
}

/** An HTTP error answer; `detail` fields left out take the family's defaults for `status`. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: SimErrorDetail = {},
  ) {
    super(detail.message ?? `HTTP ${status}`);
    this.name = 'SimError';
  }
}

/** The catalog of errors the simulator itself raises (controls raise arbitrary statuses). */
export const SimErrors = {
  status: (status: number) => new SimError(status),
  unauthorized: () => new SimError(401),
  notFound: (method: string, path: string) =>
    new SimError(404, { message: `Invalid URL (${method} ${path})`, code: null }),
  badJson: () =>
    new SimError(400, {
      message: 'We could not parse the JSON body of your request. The body must be valid JSON.',
      code: 'invalid_json',
    }),
  bodyTooLarge: (limit: number) =>
    new SimError(413, { message: `Request body is larger than ${limit} bytes.`, code: 'request_too_large' }),
  missingParam: (param: string) =>
    new SimError(400, {
      message: `Missing required parameter: '${param}'.`,
      code: 'missing_required_parameter',
      param,
    }),
  invalidParam: (param: string, why: string, code = 'invalid_value') =>
    new SimError(400, { message: why, code, param }),
  invalidControl: (name: string, raw: string) =>
    new SimError(400, {
      message: `Invalid simulator control ${name}=${JSON.stringify(raw)}.`,
      code: 'invalid_sim_control',
    }),
  /** The in-stream failure sent by `error_after`. */
  midStream: () =>
    new SimError(500, {
      message: 'The server had an error while processing your request (simulated mid-stream).',
    }),
  /** The transient failure a task's first `poll_errors` polls answer with. */
  pollFailed: () =>
    new SimError(500, {
      message: 'The server had an error while processing your request (simulated poll error).',
    }),
} as const;

/** A vendor's per-status defaults; `400` and `500` must be present, as they cover unlisted statuses. */
export type StatusCatalog<T> = Readonly<Record<number, T>> & { readonly 400: T; readonly 500: T };

/** The catalog entry for a status, falling back to the 400 or 500 entry by class. */
export function statusDefaults<T>(catalog: StatusCatalog<T>, status: number): T {
  return catalog[status] ?? (status >= 500 ? catalog[500] : catalog[400]);
}
