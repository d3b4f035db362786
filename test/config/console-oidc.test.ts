/**
 * The `console.oidc` section: its defaults, the mistakes start-up refuses (each named by its path), and
 * the blocks the docs show, which must be valid as written.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ConfigError } from '../../config/errors';
import type { Env } from '../../config/env';
import { buildConfig } from '../../config/load';
import { testConfig } from '../helpers/gateway';

const OIDC = {
  issuer: 'https://login.example.com/realms/ops',
  client_id: 'gateway-console',
  client_secret: '${OIDC_CLIENT_SECRET}',
  redirect_uri: 'https://gateway-admin.example.com/auth/callback',
  roles: [{ value: 'gateway-admins', role: 'admin' }],
};
const ENV: Env = { OIDC_CLIENT_SECRET: 'from-the-environment' };

const withOidc = (oidc: Record<string, unknown>, env: Env) =>
  buildConfig({ ...testConfig('http://127.0.0.1:1', '/tmp/unused'), console: { oidc } }, env);

/** The problems start-up reports for `oidc`, as `path: reason` lines. */
function problems(oidc: Record<string, unknown>, env: Env = ENV): string[] {
  try {
    withOidc(oidc, env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems.map((p) => `${p.path}: ${p.reason}`);
    throw e;
  }
  return [];
}

t.test('defaults, and the secret from the environment', (t) => {
  t.same(
    buildConfig(testConfig('http://127.0.0.1:1', '/tmp/unused'), {}).console,
    {},
    'off unless configured',
  );
  const oidc = withOidc(OIDC, ENV).console.oidc!;
  t.equal(oidc.client_secret, 'from-the-environment');
  t.equal(oidc.scopes, 'openid profile email');
  t.equal(oidc.role_claim, 'groups');
  t.equal(oidc.session_ttl, 8 * 3_600_000, 'sessions last 8 hours');
  t.match(
    problems(OIDC, {}),
    [/client_secret.*OIDC_CLIENT_SECRET is not set/],
    'an unset secret stops start-up',
  );
  t.end();
});

t.test('mistakes are refused with the path of the field', (t) => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['an unknown field', { ...OIDC, client: 'x' }, /^console\.oidc: .*client/],
    [
      'an http issuer elsewhere',
      { ...OIDC, issuer: 'http://login.example.com' },
      /^console\.oidc\.issuer: must be https/,
    ],
    [
      'another callback path',
      { ...OIDC, redirect_uri: 'https://a.example.com/cb' },
      /redirect_uri: must end in \/auth\/callback/,
    ],
    ['scopes without openid', { ...OIDC, scopes: 'profile email' }, /scopes: must include 'openid'/],
    ['no roles', { ...OIDC, roles: [] }, /^console\.oidc\.roles: /],
    [
      'a team_admin without a team',
      { ...OIDC, roles: [{ value: 'a', role: 'team_admin' }] },
      /roles\[0\]\.team_id: a team_admin needs its team_id/,
    ],
    [
      'a team for an admin',
      { ...OIDC, roles: [{ value: 'a', role: 'admin', team_id: 't' }] },
      /roles\[0\]\.team_id: only a team_admin/,
    ],
    ['an unknown role', { ...OIDC, roles: [{ value: 'a', role: 'owner' }] }, /roles\[0\]\.role: /],
    ['a session shorter than a minute', { ...OIDC, session_ttl: '10s' }, /session_ttl: /],
  ];
  for (const [what, oidc, expected] of cases) t.match(problems(oidc), [expected], what);
  t.same(
    problems({ ...OIDC, issuer: 'http://127.0.0.1:8443' }),
    [],
    'an http issuer on this machine is allowed',
  );
  t.end();
});

t.test('the console blocks of the docs are valid as written', (t) => {
  for (const page of ['configuration.md', 'keys-and-console.md']) {
    const text = readFileSync(join(__dirname, '..', '..', '..', 'docs', page), 'utf8');
    const block = /```yaml\n(console:\n[\s\S]*?)```/.exec(text)?.[1];
    if (!block) throw new Error(`docs/${page}: no console block`);
    const { console: section } = parse(block) as { console: { oidc: Record<string, unknown> } };
    t.same(problems(section.oidc), [], `docs/${page}`);
  }
  t.end();
});
