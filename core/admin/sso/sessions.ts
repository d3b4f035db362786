/**
 * Console sessions after single sign-on: a signed cookie (`SameSite=Strict`, HttpOnly) that carries the
 * person (an Actor), an expiry and the session's CSRF token. Nothing is stored per session: any instance
 * with the same session secret reads it, and only a sign-out is remembered (ended-sessions.ts).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { Errors } from '../../base/errors';
import type { Actor } from '../actor';
import { clearCookie, readCookie, setCookie, type CookieFlags } from './cookies';
import type { EndedSessions } from './ended-sessions';
import type { Signer } from './signer';

export const SESSION_COOKIE = 'gateway_session';
const PURPOSE = 'console-session';

export interface Session {
  readonly id: string;
  readonly actor: Actor;
  /** ms since the epoch. */
  readonly expires_at: number;
  /** What a changing call must send as `x-csrf-token` (csrf.ts). */
  readonly csrf_token: string;
}

const sessionShape: z.ZodType<Session> = z.object({
  id: z.string(),
  actor: z.object({
    kind: z.enum(['token', 'person']),
    id: z.string(),
    name: z.string(),
    role: z.enum(['admin', 'team_admin', 'viewer']),
    team_id: z.string().optional(),
  }),
  expires_at: z.number(),
  csrf_token: z.string(),
});

export class Sessions {
  private readonly flags: CookieFlags;

  constructor(
    private readonly signer: Signer,
    private readonly ended: EndedSessions,
    private readonly ttlMs: number,
    secure: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.flags = { path: '/', sameSite: 'Strict', secure };
  }

  /** A new session for `actor`, and the `Set-Cookie` value that hands it to the browser. */
  start(actor: Actor): { session: Session; cookie: string } {
    const session: Session = {
      id: randomBytes(16).toString('base64url'),
      actor,
      expires_at: this.now() + this.ttlMs,
      csrf_token: randomBytes(32).toString('base64url'),
    };
    const value = this.signer.sign(PURPOSE, session, session.expires_at);
    return { session, cookie: setCookie(SESSION_COOKIE, value, this.ttlMs, this.flags) };
  }

  /** The session `req`'s cookie carries; undefined without the cookie, 401 when altered, expired or ended. */
  async of(req: IncomingMessage): Promise<Session | undefined> {
    const value = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (value === undefined || value === '') return undefined;
    const session = this.signer.verify(PURPOSE, value, sessionShape, this.now());
    if (!session || (await this.ended.isEnded(session.id))) throw Errors.sessionInvalid();
    return session;
  }

  /** Ends `session` on every instance (until it would have expired anyway). */
  end(session: Session): Promise<void> {
    return this.ended.end(session.id, session.expires_at);
  }

  /** The `Set-Cookie` value that removes the session cookie. */
  clearing(): string {
    return clearCookie(SESSION_COOKIE, this.flags);
  }
}
