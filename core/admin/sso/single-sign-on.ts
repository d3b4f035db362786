/**
 * Single sign-on for the console (`console.oidc`): its public routes, and the person a request's
 * session cookie signs in (the admin server's SignOn).
 *   GET  /auth/config     {sso}: whether the sign-in page offers it; answered without `console.oidc` too
 *   GET  /auth/login, GET /auth/callback   the sign-in (sign-in.ts)
 *   POST /auth/logout     ends the session on every instance and clears its cookie → 204
 *   GET  /admin/session   {actor, expires_at, csrf_token}; 401 without a session
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OidcConfig } from '../../../config/schema';
import { Errors } from '../../base/errors';
import type { RedisLink } from '../../redis/redis-link';
import type { Actor } from '../actor';
import type { SignOn } from '../sign-on';
import type { ConsoleSession, SignOnOffer } from '../wire';
import { checkCsrf } from './csrf';
import { endedSessions, type EndedSessions } from './ended-sessions';
import { OidcFlow } from './oidc-flow';
import { Sessions } from './sessions';
import { SignIn } from './sign-in';
import { Signer } from './signer';
import { sendReply, type SsoReply } from './sso-reply';

type Routes = Readonly<Record<string, (req: IncomingMessage) => Promise<SsoReply>>>;

const offer = (sso: boolean): Promise<SsoReply> =>
  Promise.resolve({ status: 200, body: { sso } satisfies SignOnOffer });

/** Answers the route `METHOD /path` names in `routes`; false when there is none. */
async function serveFrom(routes: Routes, req: IncomingMessage, res: ServerResponse, requestId: string) {
  const pathname = (req.url ?? '/').split('?')[0]!;
  const route = routes[`${req.method ?? 'GET'} ${pathname}`];
  if (!route) return false;
  sendReply(res, await route(req), requestId);
  return true;
}

export class SingleSignOn implements SignOn {
  private readonly sessions: Sessions;
  private readonly routes: Routes;
  /** The console's origin, from `redirect_uri`: a changing call's `Origin` must be this. */
  private readonly origin: string;

  constructor(settings: OidcConfig, secret: Buffer, ended: EndedSessions) {
    const callback = new URL(settings.redirect_uri);
    const secure = callback.protocol === 'https:';
    const signer = new Signer(secret);
    this.origin = callback.origin;
    this.sessions = new Sessions(signer, ended, settings.session_ttl, secure);
    const signIn = new SignIn(settings, new OidcFlow(settings), signer, this.sessions, secure);
    this.routes = {
      'GET /auth/config': () => offer(true),
      'GET /auth/login': () => signIn.login(),
      'GET /auth/callback': (req) => signIn.callback(req),
      'POST /auth/logout': (req) => this.logout(req),
      'GET /admin/session': (req) => this.session(req),
    };
  }

  serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<boolean> {
    return serveFrom(this.routes, req, res, requestId);
  }

  async actorOf(req: IncomingMessage): Promise<Actor | undefined> {
    // A call that presents a token is the token's alone, whatever cookie the browser adds.
    if (req.headers.authorization !== undefined) return undefined;
    const session = await this.sessions.of(req);
    if (!session) return undefined;
    checkCsrf(req, session, this.origin);
    return session.actor;
  }

  private async session(req: IncomingMessage): Promise<SsoReply> {
    const session = await this.sessions.of(req);
    if (!session) throw Errors.unauthorized();
    const { actor, expires_at, csrf_token } = session;
    const body: ConsoleSession = { actor, expires_at: new Date(expires_at).toISOString(), csrf_token };
    return { status: 200, body };
  }

  /** Signing out is a changing call like any other: it needs the session's CSRF token. */
  private async logout(req: IncomingMessage): Promise<SsoReply> {
    const session = await this.sessions.of(req);
    if (!session) throw Errors.unauthorized();
    checkCsrf(req, session, this.origin);
    await this.sessions.end(session);
    return { status: 204, headers: { 'set-cookie': this.sessions.clearing() } };
  }
}

/** Without `console.oidc`: the console is told so, and no cookie signs anyone in. */
const WITHOUT_SIGN_ON: Routes = { 'GET /auth/config': () => offer(false) };
export const withoutSignOn: SignOn = {
  serve: (req, res, requestId) => serveFrom(WITHOUT_SIGN_ON, req, res, requestId),
  actorOf: () => Promise.resolve(undefined),
};

/** The console's sign-on as configured; `secret` signs its sessions (session-secret.ts). */
export function consoleSignOn(
  settings: OidcConfig | undefined,
  secret: Buffer,
  redis: RedisLink | undefined,
): SignOn {
  return settings ? new SingleSignOn(settings, secret, endedSessions(redis)) : withoutSignOn;
}
