/**
 * Single sign-on for tests: a real OpenID provider (identity-provider.ts) and a gateway whose console
 * signs in through it, the admin listener on a port chosen beforehand (the provider must know the
 * redirect_uri, and the gateway's configuration names it), and a walk through the provider's own
 * login and consent pages over fetch. That port cannot be 0; it is one below the ephemeral range
 * (ports.ts), so no port-0 bind can take it before the gateway binds it, and another is tried when the
 * gateway finds it in use.
 */
import type { StartOptions } from '../../core/boot/gateway';
import type { Env } from '../../config/env';
import { redirectedTo, type CookieJar } from './cookie-jar';
import { startTestGateway, type ConfigDoc, type Teardown, type TestGateway } from './gateway';
import { startIdentityProvider, type TestAccount, type TestIdentityProvider } from './identity-provider';
import { belowEphemeral, PortInUse } from './ports';

/** Who may sign in: `ops` are admins, `team-a` administers team-a; `guests` match no role. */
export const ACCOUNTS: Readonly<Record<string, TestAccount>> = {
  alice: { name: 'Alice Admin', email: 'alice@example.test', groups: ['staff', 'ops'] },
  tara: { name: 'Tara Team', email: 'tara@example.test', groups: ['team-a'] },
  gus: { name: 'Gus Guest', email: 'gus@example.test', groups: ['guests'] },
};

export const ROLES = [
  { value: 'ops', role: 'admin' },
  { value: 'team-a', role: 'team_admin', team_id: 'team-a' },
];

export interface SsoGateway extends TestGateway {
  readonly idp: TestIdentityProvider;
  /** The admin listener's origin, as redirect_uri names it. */
  readonly admin: string;
  /** Its `console.oidc` block, for another instance to share. */
  readonly oidc: ConfigDoc;
}

/** The `console.oidc` block for `idp`, its secret through `${OIDC_CLIENT_SECRET}` as a deployment would. */
export function ssoConfig(idp: TestIdentityProvider, admin: string): ConfigDoc {
  return {
    issuer: idp.issuer,
    client_id: idp.clientId,
    client_secret: '${OIDC_CLIENT_SECRET}',
    redirect_uri: `${admin}/auth/callback`,
    roles: ROLES,
    session_ttl: '1h',
  };
}

/**
 * A provider and a gateway signing in through it; `adjust` may change the gateway's document further.
 * `scheme` is the one redirect_uri names, as a TLS proxy in front would make it; tests still call the
 * listener itself over http.
 */
export async function startSsoGateway(
  t: Teardown,
  adjust: (doc: ConfigDoc) => void = () => undefined,
  options: StartOptions = {},
  scheme: 'http' | 'https' = 'http',
): Promise<SsoGateway> {
  return belowEphemeral(async (port) => {
    const admin = `http://127.0.0.1:${port}`;
    const published = `${scheme}://127.0.0.1:${port}`;
    const idp = await startIdentityProvider(t, `${published}/auth/callback`, ACCOUNTS);
    const env: Env = { OIDC_CLIENT_SECRET: idp.clientSecret };
    const oidc = ssoConfig(idp, published);
    const gw = await startTestGateway(
      t,
      (doc) => {
        doc.admin = { host: '127.0.0.1', port };
        doc.console = { oidc };
        adjust(doc);
      },
      options,
      env,
    ).catch((e: unknown) => {
      throw inUse(e) ? new PortInUse((e as Error).message) : e;
    });
    return { ...gw, idp, admin, oidc };
  });
}

/** The gateway's start failed because a listener's port was taken (listen-failure.ts keeps the cause). */
const inUse = (e: unknown): boolean =>
  e instanceof Error && (e.cause as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';

/**
 * Starts a sign-in at the gateway and walks the provider's pages as `login` (any password); resolves
 * with the callback URL the provider sends the browser back to, not yet visited, at `admin` (whatever
 * scheme redirect_uri names).
 */
export async function untilCallback(jar: CookieJar, admin: string, login: string): Promise<string> {
  let url = `${admin}/auth/login`;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const res = await jar.fetch(url, init);
    const next = redirectedTo(url, res);
    if (next && new URL(next).host === new URL(admin).host && new URL(next).pathname === '/auth/callback') {
      return `${admin}/auth/callback${new URL(next).search}`;
    }
    if (next) {
      [url, init] = [next, {}];
      continue;
    }
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
    [url, init] = submitted(url, await res.text(), login);
  }
  throw new Error('the sign-in did not come back to the gateway');
}

/** The provider page's form, filled in: its hidden fields, and the login and a password where asked. */
function submitted(page: string, html: string, login: string): [string, RequestInit] {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on ${page}: ${html.slice(0, 300)}`);
  const fields = new URLSearchParams();
  for (const [, name = '', value = ''] of html.matchAll(
    /<input[^>]*name="([^"]+)"(?:[^>]*value="([^"]*)")?/g,
  )) {
    fields.set(name, name === 'login' ? login : name === 'password' ? 'any password' : value);
  }
  return [
    new URL(action, page).href,
    { method: 'POST', body: fields, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  ];
}
