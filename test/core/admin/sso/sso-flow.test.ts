/**
 * Single sign-on for the console, over real HTTP against a real OpenID provider (oidc-provider) and a
 * real gateway: the code flow through the provider's login and consent pages (the provider requires
 * PKCE), the session cookie and its flags (Secure behind https), `/admin/session`, admin calls on the
 * cookie with and without the CSRF token, a forged callback, a tampered or expired cookie, a person no
 * role matches, the provider refusing or out of reach, and sign-out, on one instance and across two
 * sharing Redis.
 */
import t from 'tap';
import { CookieJar } from '../../../helpers/cookie-jar';
import { MemoryEndedSessions } from '../../../../core/admin/sso/ended-sessions';
import { Sessions } from '../../../../core/admin/sso/sessions';
import { Signer } from '../../../../core/admin/sso/signer';
import { startTestGateway } from '../../../helpers/gateway';
import { PATIENT_COMMAND_TIMEOUT } from '../../../helpers/patient-redis';
import { redisPrefix, TEST_REDIS_URL } from '../../../helpers/redis';
import { startSsoGateway, untilCallback, type SsoGateway } from '../../../helpers/sso';

interface AuditEntry {
  actor: { kind: string; id: string };
  action: string;
  outcome: { status: number; code?: string };
}

interface ErrorBody {
  error: { code: string; message: string; type: string };
}

const SESSION = 'gateway_session';

/** Signs `login` in through the provider; resolves with the callback's answer. */
async function signIn(jar: CookieJar, gw: SsoGateway, login: string): Promise<Response> {
  const callback = await untilCallback(jar, gw.admin, login);
  return jar.fetch(callback);
}

const errorOf = async (res: Response): Promise<ErrorBody['error']> => ((await res.json()) as ErrorBody).error;

/** The session cookie's `Set-Cookie` line in `res`, split into its attributes. */
function sessionCookie(res: Response): string[] {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION}=`));
  return line ? line.split(';').map((part) => part.trim()) : [];
}

const keysCreated = (jar: CookieJar, gw: SsoGateway, headers: Record<string, string>) =>
  jar.fetch(`${gw.admin}/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ description: 'made on a console session' }),
  });

t.test('the code flow signs a person in; the cookie then works as the token does, CSRF aside', async (t) => {
  const gw = await startSsoGateway(t);
  const jar = new CookieJar();
  t.same(
    await (await fetch(`${gw.admin}/auth/config`)).json(),
    { sso: true },
    'the console is told SSO is on',
  );
  t.equal((await jar.fetch(`${gw.admin}/admin/session`)).status, 401, 'no session before signing in');
  const asked = new URL(
    (await fetch(`${gw.admin}/auth/login`, { redirect: 'manual' })).headers.get('location')!,
  );
  t.equal(asked.origin, gw.idp.issuer, 'sign-in starts at the provider');
  t.match(
    Object.fromEntries(asked.searchParams),
    {
      response_type: 'code',
      client_id: gw.idp.clientId,
      redirect_uri: `${gw.admin}/auth/callback`,
      scope: 'openid profile email',
      code_challenge: /^[A-Za-z0-9_-]{43}$/,
      code_challenge_method: 'S256',
      state: /^[A-Za-z0-9_-]{20,}$/,
      nonce: /^[A-Za-z0-9_-]{20,}$/,
    },
    'an authorization code request with PKCE (S256), state and nonce',
  );

  const callback = await untilCallback(jar, gw.admin, 'alice');
  const login = new URL(callback);
  t.ok(login.searchParams.get('code'), 'the provider sends the browser back with a code');
  const forged = new URL(callback);
  forged.searchParams.set('state', 'not-the-state');
  const refused = await jar.fetch(forged.href);
  t.equal(refused.status, 400, 'a callback whose state is not the sign-in under way is refused');
  t.match(await errorOf(refused), { code: 'sign_in_failed', type: 'error', message: /sign-in under way/ });
  t.same(sessionCookie(refused), [], 'and gets no session');

  const landed = await jar.fetch(callback);
  t.equal(landed.status, 302, 'the real callback signs in');
  t.equal(landed.headers.get('location'), '/', 'and goes to the console');
  const flags = sessionCookie(landed);
  t.ok(flags.includes('HttpOnly'), 'the session cookie is HttpOnly');
  t.ok(flags.includes('SameSite=Strict'), 'SameSite=Strict');
  t.ok(flags.includes('Path=/'), 'for the whole listener');
  t.ok(flags.includes('Max-Age=3600'), 'as long as session_ttl');
  t.notOk(flags.includes('Secure'), 'not Secure on an http redirect_uri');
  t.match(
    landed.headers.getSetCookie().find((c) => c.startsWith('gateway_sign_in=')),
    /Max-Age=0/,
    'the pending sign-in is cleared',
  );
  t.equal((await jar.fetch(callback)).status, 400, 'the same callback cannot sign in twice');

  const session = await jar.fetch(`${gw.admin}/admin/session`);
  t.equal(session.status, 200);
  t.equal(session.headers.get('cache-control'), 'no-store');
  const { actor, expires_at, csrf_token } = (await session.json()) as {
    actor: Record<string, unknown>;
    expires_at: string;
    csrf_token: string;
  };
  t.same(actor, { kind: 'person', id: 'alice', name: 'Alice Admin', role: 'admin' }, 'the person and role');
  t.ok(Math.abs(Date.parse(expires_at) - Date.now() - 3_600_000) < 60_000, 'expires in session_ttl');
  t.match(csrf_token, /^[A-Za-z0-9_-]{43}$/);

  const listed = await jar.fetch(`${gw.admin}/admin/keys`);
  t.equal(listed.status, 200, 'an admin call with the cookie alone');
  const before = ((await listed.json()) as { data: unknown[] }).data.length;

  const noToken = await keysCreated(jar, gw, {});
  t.equal(noToken.status, 403, 'a changing call without the CSRF token is refused');
  t.match(await errorOf(noToken), { code: 'csrf_failed', type: 'error' });
  const wrongToken = await keysCreated(jar, gw, { 'x-csrf-token': 'x'.repeat(43) });
  t.equal(wrongToken.status, 403, 'and with a wrong one');
  const elsewhere = await keysCreated(jar, gw, { 'x-csrf-token': csrf_token, origin: 'http://evil.test' });
  t.equal(elsewhere.status, 403, 'and from another origin, token or not');
  t.match(await errorOf(elsewhere), { code: 'csrf_failed', message: new RegExp(gw.admin) });
  const after = await (await jar.fetch(`${gw.admin}/admin/keys`)).json();
  t.equal((after as { data: unknown[] }).data.length, before, 'none of them made a key');

  const made = await keysCreated(jar, gw, { 'x-csrf-token': csrf_token, origin: gw.admin });
  t.equal(made.status, 201, 'with the session CSRF token, from the console origin, the call goes through');
  const bearer = await fetch(`${gw.admin}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.gateway.adminToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(bearer.status, 201, 'a bearer-token call needs no CSRF token');
  const wrongBearer = await jar.fetch(`${gw.admin}/admin/keys`, {
    headers: { authorization: 'Bearer nope' },
  });
  t.equal(wrongBearer.status, 401, 'a wrong bearer token is refused even with a good cookie');

  const audit = await fetch(`${gw.admin}/admin/audit?limit=100`, {
    headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
  });
  const entries = ((await audit.json()) as { data: AuditEntry[] }).data;
  const byAlice = entries.filter((e) => e.actor.kind === 'person' && e.actor.id === 'alice');
  t.ok(
    byAlice.some((e) => e.action !== 'access.denied' && e.outcome.status === 201),
    'the audit log names the person who made the key',
  );
  t.equal(
    entries.filter((e) => e.action === 'access.denied' && e.outcome.code === 'csrf_failed').length,
    3,
    'and records each CSRF refusal',
  );
});

t.test('behind https (redirect_uri), the cookies are Secure and the origin is the https one', async (t) => {
  const gw = await startSsoGateway(t, undefined, {}, 'https');
  const jar = new CookieJar();
  const login = await jar.fetch(`${gw.admin}/auth/login`);
  t.match(
    login.headers.getSetCookie()[0],
    /^gateway_sign_in=.*; Path=\/auth; .*HttpOnly; SameSite=Lax; Secure$/,
  );
  const landed = await signIn(jar, gw, 'alice');
  t.ok(sessionCookie(landed).includes('Secure'), 'the session cookie is Secure');
  const { csrf_token } = (await (await jar.fetch(`${gw.admin}/admin/session`)).json()) as {
    csrf_token: string;
  };
  const https = gw.admin.replace('http:', 'https:');
  t.equal(
    (await keysCreated(jar, gw, { 'x-csrf-token': csrf_token, origin: gw.admin })).status,
    403,
    'not http',
  );
  t.equal((await keysCreated(jar, gw, { 'x-csrf-token': csrf_token, origin: https })).status, 201, 'https');
});

t.test('a tampered, garbled or foreign session cookie is refused with 401', async (t) => {
  const gw = await startSsoGateway(t);
  const jar = new CookieJar();
  t.equal((await signIn(jar, gw, 'tara')).status, 302);
  const session = (await (await jar.fetch(`${gw.admin}/admin/session`)).json()) as { actor: unknown };
  t.same(session.actor, {
    kind: 'person',
    id: 'tara',
    name: 'Tara Team',
    role: 'team_admin',
    team_id: 'team-a',
  });
  const { csrf_token } = (await (await jar.fetch(`${gw.admin}/admin/session`)).json()) as {
    csrf_token: string;
  };
  const reload = await jar.fetch(`${gw.admin}/admin/reload`, {
    method: 'POST',
    headers: { 'x-csrf-token': csrf_token },
  });
  t.equal(reload.status, 403, "the role table applies to a person: a team_admin's session may not reload");
  t.match(await errorOf(reload), { code: 'forbidden' });

  const genuine = jar.get(gw.admin, SESSION)!;
  const [body, mac] = genuine.split('.') as [string, string];
  const payload = Buffer.from(body, 'base64url').toString().replace('"team_admin"', '"admin"');
  const tampered = `${Buffer.from(payload).toString('base64url')}.${mac}`;
  for (const [what, value] of [
    ['a role raised in the payload', tampered],
    ['a cut signature', genuine.slice(0, -2)],
    ['garbage', 'not-a-session'],
  ] as const) {
    jar.set(gw.admin, SESSION, value);
    const res = await jar.fetch(`${gw.admin}/admin/keys`);
    t.equal(res.status, 401, `${what}: 401`);
    t.match(await errorOf(res), { code: 'unauthorized', message: /sign in again/ });
  }
  t.equal((await jar.fetch(`${gw.admin}/admin/session`)).status, 401, '/admin/session too');

  const other = await startSsoGateway(t);
  jar.set(other.admin, SESSION, genuine);
  t.equal((await jar.fetch(`${other.admin}/admin/keys`)).status, 401, "another gateway's secret: 401");
});

t.test('a person whose groups match no role is refused, and gets no session', async (t) => {
  const gw = await startSsoGateway(t);
  const jar = new CookieJar();
  const res = await signIn(jar, gw, 'gus');
  t.equal(res.status, 403);
  const error = await errorOf(res);
  t.match(error, { code: 'sign_in_refused', type: 'error' });
  t.match(error.message, /Gus Guest.*console\.oidc\.roles.*'groups' claim/, 'saying who and why');
  t.same(sessionCookie(res), []);
  t.equal((await jar.fetch(`${gw.admin}/admin/session`)).status, 401);
});

t.test('signing out ends the session: its cookie is refused afterwards, even if kept', async (t) => {
  const gw = await startSsoGateway(t);
  const jar = new CookieJar();
  await signIn(jar, gw, 'alice');
  const kept = jar.get(gw.admin, SESSION)!;
  const { csrf_token } = (await (await jar.fetch(`${gw.admin}/admin/session`)).json()) as {
    csrf_token: string;
  };

  const forcedOut = await jar.fetch(`${gw.admin}/auth/logout`, { method: 'POST' });
  t.equal(forcedOut.status, 403, 'signing out needs the CSRF token too');
  t.equal((await jar.fetch(`${gw.admin}/admin/session`)).status, 200, 'so the session goes on');

  const out = await jar.fetch(`${gw.admin}/auth/logout`, {
    method: 'POST',
    headers: { 'x-csrf-token': csrf_token },
  });
  t.equal(out.status, 204);
  t.match(sessionCookie(out), ['gateway_session=', 'Path=/', 'Max-Age=0'], 'the cookie is cleared');
  t.equal((await jar.fetch(`${gw.admin}/admin/session`)).status, 401, 'signed out');
  jar.set(gw.admin, SESSION, kept);
  t.equal((await jar.fetch(`${gw.admin}/admin/session`)).status, 401, 'the old cookie, replayed, is refused');
  t.equal((await jar.fetch(`${gw.admin}/admin/keys`)).status, 401, 'for admin calls too');
});

t.test('with Redis, a session ended on one instance is refused by every instance', async (t) => {
  // Redis given seconds to answer: an ended-session check it does not answer in time is a 503.
  const redis = { url: TEST_REDIS_URL, key_prefix: redisPrefix(t), command_timeout: PATIENT_COMMAND_TIMEOUT };
  // Instances on one store share the key secret, and so the session secret derived from it.
  const env = { GATEWAY_KEY_SECRET: 'shared-key-secret-for-both-instances' };
  const a = await startSsoGateway(t, (doc) => (doc.redis = redis), { env });
  const b = await startTestGateway(
    t,
    (doc) => {
      doc.redis = redis;
      doc.console = { oidc: a.oidc };
    },
    { env },
    { OIDC_CLIENT_SECRET: a.idp.clientSecret },
  );
  const jar = new CookieJar();
  await signIn(jar, a, 'alice');
  const cookie = `${SESSION}=${jar.get(a.admin, SESSION)}`;
  const onB = () => fetch(`${b.gateway.adminUrl}/admin/keys`, { headers: { cookie } });
  t.equal((await onB()).status, 200, 'a session signed in on one instance works on the other');

  const { csrf_token } = (await (await jar.fetch(`${a.admin}/admin/session`)).json()) as {
    csrf_token: string;
  };
  const out = await jar.fetch(`${a.admin}/auth/logout`, {
    method: 'POST',
    headers: { 'x-csrf-token': csrf_token },
  });
  t.equal(out.status, 204, 'signed out on the first');
  t.equal((await onB()).status, 401, 'the second refuses it at once');
});

t.test('sessions are signed with GATEWAY_SESSION_SECRET when set; an expired one is refused', async (t) => {
  const secret = 'a-session-secret-the-instances-share';
  const gw = await startSsoGateway(t, undefined, { env: { GATEWAY_SESSION_SECRET: secret } });
  const actor = { kind: 'person', id: 'alice', name: 'Alice Admin', role: 'admin' } as const;
  const made = (hoursAgo: number) => {
    const sessions = new Sessions(
      new Signer(Buffer.from(secret)),
      new MemoryEndedSessions(),
      3_600_000,
      false,
      () => Date.now() - hoursAgo * 3_600_000,
    );
    return sessions.start(actor).cookie.split(';')[0]!;
  };
  const sessionWith = (cookie: string) => fetch(`${gw.admin}/admin/session`, { headers: { cookie } });
  t.equal((await sessionWith(made(0))).status, 200, 'a session signed with that secret is good');
  const expired = await sessionWith(made(2));
  t.equal(expired.status, 401, 'one whose time is up is not');
  t.match(await errorOf(expired), { code: 'unauthorized', message: /expired/ });
});

t.test('the provider out of reach, or refusing, is told as such', async (t) => {
  const gw = await startSsoGateway(t);
  const jar = new CookieJar();
  const callback = new URL(await untilCallback(jar, gw.admin, 'alice'));
  const denied = new URL(`${gw.admin}/auth/callback`);
  denied.search = new URLSearchParams({
    error: 'access_denied',
    error_description: 'the person cancelled',
    state: callback.searchParams.get('state')!,
    iss: gw.idp.issuer,
  }).toString();
  const refused = await jar.fetch(denied.href);
  t.equal(refused.status, 400, "the provider's refusal");
  t.match(await errorOf(refused), { code: 'sign_in_failed', message: /access_denied: the person cancelled/ });

  const dead = await startSsoGateway(t, (doc) => {
    const oidc = (doc.console as { oidc: Record<string, unknown> }).oidc;
    oidc.issuer = 'http://127.0.0.1:9/';
  });
  const res = await fetch(`${dead.admin}/auth/login`, { redirect: 'manual' });
  t.equal(res.status, 502, 'a provider that cannot be reached');
  t.match(await errorOf(res), { code: 'identity_provider_unavailable', type: 'error' });
});

t.test('without console.oidc the console is told there is no SSO, and cookies sign nobody in', async (t) => {
  const gw = await startTestGateway(t);
  const admin = gw.gateway.adminUrl;
  t.same(await (await fetch(`${admin}/auth/config`)).json(), { sso: false });
  t.equal((await fetch(`${admin}/auth/login`)).status, 401, 'no sign-in route, only the token');
  const withCookie = await fetch(`${admin}/admin/keys`, { headers: { cookie: `${SESSION}=anything` } });
  t.equal(withCookie.status, 401);
});
