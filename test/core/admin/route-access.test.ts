/**
 * The route access table, over real HTTP against a real gateway: every role against every admin route,
 * 403 `forbidden` (the contract's error body, naming the roles the route needs) exactly where the table
 * says, and anything but 403 where it allows. Then: a route missing from the table stops start-up.
 */
import t from 'tap';
import pino from 'pino';
import { AdminServer } from '../../../core/admin/admin-server';
import { AdminTokenService } from '../../../core/admin/admin-token-service';
import { bootstrapTokenSource } from '../../../core/admin/actor-sources';
import type { Role } from '../../../core/admin/actor';
import { ROUTE_ACCESS, accessOf } from '../../../core/admin/route-access';
import { KeyHasher } from '../../../core/keys/api-key';
import { EmbeddedAdminTokenStore } from '../../../core/stores/embedded/embedded-admin-token-store';
import { EmbeddedAuditStore } from '../../../core/stores/embedded/embedded-audit-store';
import { startTestGateway, tempDir } from '../../helpers/gateway';
import { adminCall, makeAdminToken, teamsNamed, type ErrorBody } from '../../helpers/admin';

/** Routes the table lists ahead of the code that serves them (teams come with their own store). */
const SERVED_ELSEWHERE = /^\/admin\/teams(\/|$)/;

/** A body each changing route accepts, so an allowed call gets past its checks. */
const BODIES: Record<string, unknown> = {
  'POST /admin/keys': { description: 'made by the access test' },
  'PATCH /admin/keys/:id': { description: 'changed by the access test' },
  'POST /admin/keys/:id/rotate': {},
  'POST /admin/tokens': { role: 'viewer', description: 'made by the access test' },
};

const ROLES: readonly Role[] = ['admin', 'team_admin', 'viewer'];

t.test('every role against every admin route: 403 exactly where the table says', async (t) => {
  const gw = await startTestGateway(t, undefined, { teamExists: teamsNamed('team-a') });
  const tokens: Record<Role, string> = {
    admin: await makeAdminToken(gw, { role: 'admin' }),
    team_admin: await makeAdminToken(gw, { role: 'team_admin', team_id: 'team-a' }),
    viewer: await makeAdminToken(gw, { role: 'viewer' }),
  };
  // A key of the team_admin's own team for each `:id` call, so only the role decides.
  const ids: Record<string, () => Promise<string>> = {
    keys: async () => (await gw.gateway.keys.create({ team_id: 'team-a' })).record.id,
    tasks: () => Promise.resolve('vt-none'),
    tokens: () => Promise.resolve('gat-none0000'),
  };

  for (const [route, access] of Object.entries(ROUTE_ACCESS)) {
    const [method, pattern] = route.split(' ') as [string, string];
    if (SERVED_ELSEWHERE.test(pattern)) continue;
    for (const role of ROLES) {
      const path = pattern.includes(':id')
        ? pattern.replace(':id', await ids[pattern.split('/')[2]!]!())
        : pattern;
      const answer = await adminCall<ErrorBody>(gw, tokens[role], method, path, BODIES[route]);
      const what = `${role} ${route}`;
      t.not(answer.body.error?.code, 'not_found', `${route} is served`);
      if (access.roles.includes(role)) {
        t.not(answer.status, 403, `${what}: allowed (${answer.status})`);
      } else {
        t.equal(answer.status, 403, `${what}: forbidden`);
        t.strictSame(
          answer.body,
          {
            error: {
              code: 'forbidden',
              message: `forbidden: ${route} needs the role ${access.roles.join(' or ')}; this caller is ${role}`,
              type: 'error',
            },
          },
          `${what}: the contract's error body, naming the roles it needs`,
        );
      }
    }
  }
});

t.test('the table holds itself to its rules', (t) => {
  t.throws(() => accessOf('GET', '/admin/nowhere'), /GET \/admin\/nowhere has no entry/);
  const bad = {
    'POST /admin/x': { roles: ['admin', 'viewer'] as Role[], audit: { action: 'x.y', target: 'x' } },
    'GET /admin/y': { roles: ['team_admin'] as Role[] },
    'DELETE /admin/z': { roles: ['admin'] as Role[] },
  };
  t.throws(() => accessOf('POST', '/admin/x', bad), /a viewer may only read/);
  t.throws(() => accessOf('GET', '/admin/y', bad), /must say how it is held to the team/);
  t.throws(() => accessOf('DELETE', '/admin/z', bad), /must name its audit action/);
  t.end();
});

t.test('an admin route without an entry in the table stops start-up', async (t) => {
  const dir = await tempDir(t);
  const adminTokens = await EmbeddedAdminTokenStore.open(dir);
  const audit = await EmbeddedAuditStore.open(dir, { retentionMs: 0 });
  t.teardown(() => audit.close());
  const gw = await startTestGateway(t);
  const table = Object.fromEntries(
    Object.entries(ROUTE_ACCESS).filter(([route]) => route !== 'GET /admin/audit'),
  );
  const access = {
    actors: [bootstrapTokenSource('x')],
    tokens: new AdminTokenService(adminTokens, new KeyHasher(Buffer.from('s')), {
      cacheTtlMs: 1,
      cacheMax: 1,
    }),
    audit,
    logger: pino({ level: 'silent' }),
    table,
  };
  t.throws(
    () => new AdminServer(access, gw.gateway.keys, gw.gateway.usage),
    /admin route GET \/admin\/audit has no entry in the route access table/,
  );
  t.doesNotThrow(
    () => new AdminServer({ ...access, table: ROUTE_ACCESS }, gw.gateway.keys, gw.gateway.usage),
  );
});
