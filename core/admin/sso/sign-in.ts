/**
 * The sign-in itself, from `/auth/login` to the session cookie:
 *   GET  /auth/login      → 302 to the provider; the pending sign-in (state, nonce, PKCE verifier) goes
 *                           in a signed, HttpOnly, SameSite=Lax cookie for 10 minutes (Lax: it must come
 *                           back on the provider's redirect, a navigation from another site)
 *   GET  /auth/callback   → the state checked, the code exchanged, the ID token checked, the claim mapped
 *                           to a role (403 when none matches) → the session cookie and 302 to `/`
 */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { OidcConfig } from '../../../config/schema';
import { Errors } from '../../base/errors';
import type { Actor } from '../actor';
import { clearCookie, readCookie, setCookie, type CookieFlags } from './cookies';
import type { Claims, OidcFlow, PendingSignIn } from './oidc-flow';
import { grantFor } from './role-mapping';
import type { Sessions } from './sessions';
import type { Signer } from './signer';
import type { SsoReply } from './sso-reply';

const PENDING_COOKIE = 'gateway_sign_in';
const PENDING_PURPOSE = 'console-sign-in';
const PENDING_TTL_MS = 10 * 60_000;

const pendingShape: z.ZodType<PendingSignIn> = z.object({
  state: z.string(),
  nonce: z.string(),
  verifier: z.string(),
});

/** The claims that name a person, best first; the subject when the provider sends none of them. */
const NAME_CLAIMS = ['name', 'email', 'preferred_username'] as const;

export class SignIn {
  private readonly flags: CookieFlags;

  constructor(
    private readonly settings: OidcConfig,
    private readonly flow: OidcFlow,
    private readonly signer: Signer,
    private readonly sessions: Sessions,
    secure: boolean,
  ) {
    this.flags = { path: '/auth', sameSite: 'Lax', secure };
  }

  async login(): Promise<SsoReply> {
    const { url, pending } = await this.flow.begin();
    const value = this.signer.sign(PENDING_PURPOSE, pending, Date.now() + PENDING_TTL_MS);
    return redirect(url, [setCookie(PENDING_COOKIE, value, PENDING_TTL_MS, this.flags)]);
  }

  async callback(req: IncomingMessage): Promise<SsoReply> {
    const search = new URL(req.url ?? '/', 'http://admin').searchParams;
    const pending = this.pendingOf(req);
    if (search.get('state') !== pending.state) {
      throw Errors.signInFailed('the callback does not belong to the sign-in under way in this browser');
    }
    const claims = await this.flow.finish(search, pending);
    const { cookie } = this.sessions.start(this.actorOf(claims));
    return redirect('/', [cookie, clearCookie(PENDING_COOKIE, this.flags)]);
  }

  private pendingOf(req: IncomingMessage): PendingSignIn {
    const value = readCookie(req.headers.cookie, PENDING_COOKIE);
    const pending = value && this.signer.verify(PENDING_PURPOSE, value, pendingShape);
    if (!pending) {
      throw Errors.signInFailed(
        'no sign-in is under way in this browser (or it took over 10 minutes); start again',
      );
    }
    return pending;
  }

  /** The person, with the role the first matching `roles` entry gives; 403 when none does. */
  private actorOf(claims: Claims): Actor {
    const named = NAME_CLAIMS.map((claim) => claims[claim]).find((v) => typeof v === 'string' && v !== '');
    const name = typeof named === 'string' ? named : claims.sub;
    const grant = grantFor(this.settings.roles, claims[this.settings.role_claim]);
    if (!grant) throw Errors.signInRefused(name, this.settings.role_claim);
    return { kind: 'person', id: claims.sub, name, ...grant };
  }
}

const redirect = (location: string, cookies: string[]): SsoReply => ({
  status: 302,
  headers: { location, 'set-cookie': cookies },
});
