/**
 * What makes two calls the same call: who may share the answer (the scope), the endpoint, the model the
 * client asked for, and the body in a canonical form. safe-stable-stringify writes object members in
 * sorted order, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one body. Members that do not change the
 * answer are left out: `stream` and `stream_options` (how it is delivered; the forms are stored apart,
 * and the usage chunk is added or taken out on replay), `metadata` and `user` (the client's own labels).
 * The stores name an entry from this text (see `digest`).
 */
import { hash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { flatString } from '../../../core/kit/json';
import type { GatewayContext } from '../../../core/kit/plugin';
import type { CacheOptions } from './options';

/** Top-level members left out of the canonical body. */
const NOT_THE_QUESTION_NAMES = ['stream', 'stream_options', 'metadata', 'user'] as const;
const NOT_THE_QUESTION: ReadonlySet<string> = new Set(NOT_THE_QUESTION_NAMES);

/** Whether the body has any member left out of the question (an indexed loop: run for every call). */
function hasLeftOut(body: Readonly<Record<string, unknown>>): boolean {
  for (let i = 0; i < NOT_THE_QUESTION_NAMES.length; i++)
    if (body[NOT_THE_QUESTION_NAMES[i]!] !== undefined) return true;
  return false;
}

/** Who shares entries under the configured scope; a key without a team shares as its own scope. */
export function scopeOf(ctx: GatewayContext, scope: CacheOptions['scope']): string {
  if (scope === 'all') return 'all';
  if (scope === 'team' && ctx.team) return `team:${ctx.team.id}`;
  return `key:${ctx.key?.id ?? ''}`;
}

/**
 * The call as one text: the scope, endpoint, model, form and canonical body. Made flat: built piece by
 * piece, it would be a tree of every piece, hashed through a copy at each lookup and, once stored, kept
 * and moved by the collector piece by piece.
 */
export function cacheKey(
  scope: string,
  endpoint: string,
  model: string,
  stream: boolean,
  body: Readonly<Record<string, unknown>>,
): string {
  return flatString(
    `${scope}\n${endpoint}\n${model}\n${stream ? 'sse' : 'json'}\n${stringify(questionOf(body)) ?? ''}`,
  );
}

/**
 * A key's SHA-256, for a name of bounded length. Its `#` cannot begin a key, whose scope comes first:
 * a digest and a key are never the same name.
 */
export const digest = (key: string): string => `#${hash('sha256', key, 'base64url')}`;

/** The body without the members that do not change the answer; the body itself when it has none. */
function questionOf(body: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (!hasLeftOut(body)) return body;
  const question: Record<string, unknown> = {};
  for (const name of Object.keys(body)) {
    if (NOT_THE_QUESTION.has(name)) continue;
    // Defined, not assigned: assigning `__proto__` sets the copy's prototype, and drops it from the key.
    if (name === '__proto__')
      Object.defineProperty(question, name, { value: body[name], enumerable: true, writable: true });
    else question[name] = body[name];
  }
  return question;
}
