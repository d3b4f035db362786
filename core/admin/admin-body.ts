/**
 * An admin request's JSON body: at most 64 KiB, read within 30 s; an empty body is `{}`. Read against a
 * zod schema, its first problem is the catalog's error naming the field (`field 'budget.period' must be
 * 'total' or 'month'`), for every admin route that takes a body (key-routes.ts, team-routes.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { Errors } from '../base/errors';
import { bodyReader } from '../http/body';

const readAdminBody = bodyReader({ maxBytes: 64 * 1024, idleMs: 10_000, totalMs: 30_000 });

export async function readAdminJson(req: IncomingMessage): Promise<unknown> {
  const text = (await readAdminBody(req)).toString('utf8') || '{}';
  try {
    return JSON.parse(text);
  } catch (e) {
    throw Errors.invalidJson((e as Error).message);
  }
}

/** What a route's fields must be, as error messages say it, by dotted path (array items as `field.*`). */
export interface BodyFields {
  readonly expected: Readonly<Record<string, string>>;
  /** Fields a PATCH may clear with null: their message adds so. */
  readonly clearable?: ReadonlySet<string>;
}

/** The first problem zod found, as the catalog's error naming the field (`clearing`: null is allowed). */
function bodyError(error: z.ZodError, fields: BodyFields, clearing: boolean): Error {
  const issue = error.issues[0]!;
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys')
    return Errors.unknownField((path ? `${path}.` : '') + issue.keys[0]);
  if (!path) return Errors.invalidRequest('the request body must be a JSON object');
  // The deepest described field: `budget.period`, else `budget`; array items as `allowed_models.*`.
  const pattern = issue.path.map((p) => (typeof p === 'number' ? '*' : String(p)));
  const known = pattern
    .map((_, i) => pattern.slice(0, pattern.length - i).join('.'))
    .find((p) => fields.expected[p] !== undefined);
  if (!known) return Errors.invalidField(path, issue.message);
  const orNull = clearing && fields.clearable?.has(known) ? ', or null to clear it' : '';
  return Errors.invalidField(path, fields.expected[known]! + orNull);
}

/** The body as `schema` reads it; `clearing`: a PATCH, where null clears a field. */
export async function readJsonBody<T>(
  req: IncomingMessage,
  schema: z.ZodType<T>,
  fields: BodyFields,
  clearing = false,
): Promise<T> {
  const parsed = schema.safeParse(await readAdminJson(req));
  if (!parsed.success) throw bodyError(parsed.error, fields, clearing);
  return parsed.data;
}

/** A PATCH body as a store change: null clears a field, and the stores remove a field given as undefined. */
export function toChange<C extends object>(patch: Readonly<Record<string, unknown>>): C {
  const change: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) change[field] = value === null ? undefined : value;
  return change as C;
}
