/**
 * Three instances over one key store and one team store (as with MongoDB) and one Redis: a team changed
 * through one instance applies on the others within a pub/sub hop, though their team caches keep
 * entries a minute, and so do a key's and a team's guardrails and allowed MCP tools (what the guardrails
 * stage and the MCP endpoint read from the cached records). The instances run in this process, each with its own data directory otherwise.
 * A hop takes milliseconds; the wait for it allows seconds (a busy machine), well inside the minute.
 */
import 'reflect-metadata';
import '../../helpers/load-plugins';
import t from 'tap';
import { buildConfig } from '../../../config/load';
import { startGateway, type RunningGateway } from '../../../core/boot/gateway';
import { EmbeddedKeyStore } from '../../../core/stores/embedded/embedded-key-store';
import { EmbeddedTeamStore } from '../../../core/stores/embedded/embedded-team-store';
import { startSimulator } from '../../../simulator/server';
import { tempDir, testConfig, type Teardown } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { patientRedis } from '../../helpers/patient-redis';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';

const hello = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

/** Three gateways over one key store, one team store and the test Redis, caching lookups a minute. */
async function threeInstances(t: Teardown): Promise<[RunningGateway, RunningGateway, RunningGateway]> {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const keyStore = await EmbeddedKeyStore.open(await tempDir(t));
  const teamStore = await EmbeddedTeamStore.open(await tempDir(t));
  t.teardown(() => Promise.all([keyStore.close(), teamStore.close()]));
  const env = { GATEWAY_KEY_SECRET: 'shared-secret-for-this-test' };
  const prefix = redisPrefix(t);
  const gateways: RunningGateway[] = [];
  for (let i = 0; i < 3; i++) {
    const doc = testConfig(sim.url, await tempDir(t));
    doc.redis = { url: TEST_REDIS_URL, key_prefix: prefix };
    patientRedis(doc); // an event is published however busy the machine (its loss costs a minute)
    doc.keys = { cache_ttl: '60s' };
    const gateway = await startGateway(buildConfig(doc, {}), { env, keyStore, teamStore });
    t.teardown(() => gateway.close(1_000));
    gateways.push(gateway);
  }
  return gateways as [RunningGateway, RunningGateway, RunningGateway];
}

t.test('a team changed on one instance applies on all of them at once', async (t) => {
  const gateways = await threeInstances(t);
  const [a, b, c] = gateways;
  const team = await a.teams.create({ name: 'narrow', allowed_models: ['modelb-3.5-flash'] });
  const { key } = await a.keys.create({ team_id: team.id });
  for (const gw of gateways) {
    const res = await postJson(`${gw.url}/v1/chat/completions`, hello, key);
    t.equal(res.status, 403, "refused by the team's models (and the team cached for a minute)");
  }
  const changed = await fetch(`${a.adminUrl}/admin/teams/${team.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${a.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ allowed_models: [] }),
  });
  t.equal(changed.status, 200);
  for (const gw of [b, c]) {
    await eventually(
      async () => (await postJson(`${gw.url}/v1/chat/completions`, hello, key)).status === 200,
      5_000,
      'the change applied on another instance',
    );
    t.pass('served by another instance before its cache ran out: its cached team was evicted');
  }
});

t.test(
  "guardrails and tools changed on one instance are on every instance's cached key and team",
  async (t) => {
    const [a, b, c] = await threeInstances(t);
    const team = await a.teams.create({
      name: 'guarded',
      guardrails: ['team-rule'],
      allowed_tools: ['search__*'],
    });
    const { key } = await a.keys.create({ team_id: team.id, guardrails: ['key-rule'] });
    // Each instance reads the key and the team once: from then on its caches hold them for a minute.
    for (const gw of [b, c]) {
      t.strictSame((await gw.keys.lookup(key))?.guardrails, ['key-rule'], 'the key, as created');
      t.notOk('allowed_tools' in ((await gw.keys.lookup(key)) ?? {}), 'with every tool');
      t.strictSame((await gw.teams.lookup(team.id))?.guardrails, ['team-rule'], 'the team, as created');
      t.strictSame((await gw.teams.lookup(team.id))?.allowed_tools, ['search__*'], 'and its tools');
    }
    const patch = (path: string, body: unknown) =>
      fetch(`${a.adminUrl}${path}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${a.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    t.equal(
      (
        await patch(`/admin/keys/${key.slice(0, 11)}`, {
          guardrails: ['key-rule', 'strict'],
          allowed_tools: ['search__web'],
        })
      ).status,
      200,
    );
    t.equal((await patch(`/admin/teams/${team.id}`, { guardrails: null, allowed_tools: [] })).status, 200);
    for (const gw of [b, c]) {
      await eventually(
        () => gw.keys.cached(key) === undefined && gw.teams.cached(team.id) === undefined,
        5_000,
        'the cached key and team let go on another instance',
      );
      t.strictSame(
        (await gw.keys.lookup(key))?.guardrails,
        ['key-rule', 'strict'],
        "the key's new list, before its cache ran out",
      );
      t.strictSame((await gw.keys.lookup(key))?.allowed_tools, ['search__web'], "and the key's tools");
      t.notOk('guardrails' in ((await gw.teams.lookup(team.id)) ?? {}), "and the team's list cleared");
      t.notOk('allowed_tools' in ((await gw.teams.lookup(team.id)) ?? {}), "as are the team's tools");
    }
  },
);
