/**
 * A session cookie goes with every request the browser makes to the admin listener, so a call that
 * changes something must also prove it comes from the console's own page: the session's CSRF token in
 * `x-csrf-token` (a page of another origin cannot read it), and an `Origin`, when the browser sends
 * one, that is the console's. Reading calls change nothing; bearer-token calls carry no ambient
 * credential, so neither is checked.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Errors } from '../../base/errors';
import type { Session } from './sessions';

const READING = new Set(['GET', 'HEAD']);

/** Throws 403 `csrf_failed` for a changing call on `session` that does not come from `origin`'s console. */
export function checkCsrf(req: IncomingMessage, session: Session, origin: string): void {
  if (READING.has(req.method ?? 'GET')) return;
  const sent = req.headers['x-csrf-token'];
  if (typeof sent !== 'string' || !same(sent, session.csrf_token)) {
    throw Errors.csrfFailed("a changing call on a console session needs the session's x-csrf-token header");
  }
  const from = req.headers.origin;
  if (from !== undefined && from !== origin) {
    throw Errors.csrfFailed(`a changing call on a console session must come from ${origin}`);
  }
}

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};
