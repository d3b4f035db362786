/**
 * Keys declared in gateway.yaml through a real gateway and the simulator: a chat call with the openai
 * client, then the checks stored keys get (allowed models, expiry, the key's own rate limit), its
 * guardrails and allowed tools, a key declared by its hash, streams left alone by the revocation sweep,
 * no first key created, and the admin API showing them read-only without secrets.
 */
import t from 'tap';
import OpenAI from 'openai';
import { KeyHasher } from '../../../core/keys/api-key';
import { startTestGateway } from '../../helpers/gateway';
import { isError } from '../../helpers/errors';
import { postJson, type JsonResponse } from '../../helpers/http';
import { openLongStream } from '../../helpers/key-streams';
import { upstreamGate } from '../../helpers/upstream-gate';
import { until } from '../../helpers/wait';
import { checksOf, deliversAfterNow } from './stream-checks';

const SERVER_SECRET = 'declared-e2e-server-secret';
const TEAM_A = 'sk-' + 'TeamA0123456789'.repeat(3);
const BY_HASH = 'sk-' + 'hashed-0123456789'.repeat(2);
const LIMITED = 'sk-' + 'Limited0123456789'.repeat(2);
const EXPIRED = 'sk-' + 'Expired0123456789'.repeat(2);
const SINGLE = `sk-${'c'.repeat(40)}`;
const ask = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

t.test('declared keys', async (t) => {
  const hash = new KeyHasher(Buffer.from(SERVER_SECRET)).hash(BY_HASH);
  const gate = await upstreamGate(t);
  const gw = await startTestGateway(
    t,
    (doc, sim) => {
      gate.between(doc, sim.url);
      doc.keys = {
        revoke_check_every: '50ms',
        declared: [
          // As gateway.yaml writes it: the secret from the environment.
          {
            name: 'team-a',
            secret: '${TEAM_A_KEY}',
            description: 'team A',
            allowed_models: ['modela-5.5'],
            guardrails: ['pii-mask', 'no.secrets'],
            allowed_tools: ['demo__add', 'search__*'],
          },
          { name: 'by-hash', hash },
          { name: 'limited', secret: LIMITED, rate_limit_rpm: 2, allowed_tools: [] },
          { name: 'one-at-a-time', secret: SINGLE, max_concurrent: 1, rate_limit_tpm: 100_000 },
          { name: 'expired', secret: EXPIRED, expires_at: '2020-01-01T00:00:00Z' },
        ],
      };
    },
    { env: { GATEWAY_KEY_SECRET: SERVER_SECRET } },
    { TEAM_A_KEY: TEAM_A },
  );
  const chat = `${gw.url}/v1/chat/completions`;
  const admin = async (method: string, path: string, body?: unknown): Promise<JsonResponse> => {
    const res = await fetch(`${gw.gateway.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${gw.gateway.adminToken}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: JSON.parse(text) as Record<string, unknown>,
      text,
    };
  };

  t.equal(gw.gateway.firstKey, undefined, 'no first key is created when keys are declared');

  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEAM_A, maxRetries: 0 });
  const completion = await client.chat.completions.create({
    model: 'modela-5.5',
    messages: [{ role: 'user', content: 'Say hello #sim tokens=3' }],
  });
  t.equal(completion.usage?.completion_tokens, 3, 'the openai client works with a declared key');
  const [record] = await gw.gateway.usage.list({ key_id: 'declared:team-a', limit: 1 });
  t.equal(record?.completion_tokens, 3, 'usage is recorded under declared:team-a');

  isError(t, await postJson(chat, { ...ask, model: 'modelc-3.6-flash' }, TEAM_A), 403, 'model_not_allowed');
  t.equal((await postJson(chat, ask, BY_HASH)).status, 200, 'a key declared by its hash works');
  isError(t, await postJson(chat, ask, EXPIRED), 401, 'unauthorized');
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await postJson(chat, ask, LIMITED)).status);
  t.strictSame(statuses, [200, 200, 429], "the key's own rate_limit_rpm applies");
  t.equal((await postJson(chat, ask, gw.key)).status, 200, 'stored keys still work beside them');
  // One call held upstream (so under way, its slot taken) while the next is decided.
  gate.hold((id) => id === 'declared-slow');
  const slow = postJson(chat, ask, SINGLE, { 'x-request-id': 'declared-slow' });
  await until(
    () => gate.waiting,
    (ids) => ids.includes('declared-slow'),
    { what: 'the first call under way' },
  );
  isError(t, await postJson(chat, ask, SINGLE), 429, 'rate_limited');
  gate.release();
  t.equal((await slow).status, 200, "the key's own max_concurrent applies: one call at a time");

  // The revocation sweep re-reads keys with open streams by id: a declared one must be found.
  const checks = checksOf(gw.gateway.keys, 'declared:by-hash');
  const stream = await openLongStream(gw.url, BY_HASH);
  const since = checks();
  await until(checks, (n) => n >= since + 3, { what: "three sweeps over the declared key's stream" });
  t.ok(await deliversAfterNow(stream), "a declared key's stream survives the revocation sweeps");
  stream.res.destroy();

  const listed = await admin('GET', '/admin/keys/declared');
  t.equal(listed.status, 200);
  const data = listed.body.data as Record<string, unknown>[];
  t.strictSame(
    data.map((k) => [k.id, k.status, k.declared]),
    [
      ['declared:team-a', 'enabled', true],
      ['declared:by-hash', 'enabled', true],
      ['declared:limited', 'enabled', true],
      ['declared:one-at-a-time', 'enabled', true],
      ['declared:expired', 'expired', true],
    ],
  );
  t.strictSame(data[0]!.allowed_models, ['modela-5.5']);
  t.strictSame(data[0]!.guardrails, ['pii-mask', 'no.secrets'], 'its guardrails, as declared');
  t.notOk('guardrails' in data[1]!, 'none where none are declared');
  t.strictSame(
    (await gw.gateway.keys.lookup(TEAM_A))?.guardrails,
    ['pii-mask', 'no.secrets'],
    'on the record a call on the key is given',
  );
  t.strictSame(data[0]!.allowed_tools, ['demo__add', 'search__*'], 'its tools, as declared');
  t.notOk('allowed_tools' in data[1]!, 'every tool where none are declared');
  t.notOk('allowed_tools' in data[2]!, 'and where an empty list is');
  t.strictSame(
    (await gw.gateway.keys.lookup(TEAM_A))?.allowed_tools,
    ['demo__add', 'search__*'],
    'on the record a call on the key is given',
  );
  t.equal(data[2]!.rate_limit_rpm, 2);
  t.match(data[3], { max_concurrent: 1, rate_limit_tpm: 100_000 });
  for (const secret of [TEAM_A, LIMITED, EXPIRED, SINGLE, hash, gw.gateway.keys.listDeclared()[0]!.hash])
    t.notOk(listed.text.includes(secret), 'neither secret nor hash in the listing');
  t.notOk(listed.text.includes('"hash"'));
  const page = await admin('GET', '/admin/keys');
  t.notOk(page.text.includes('declared:'), 'GET /admin/keys lists stored keys only');

  const one = await admin('GET', '/admin/keys/declared:team-a');
  t.equal(one.status, 200);
  t.equal(one.body.declared, true);
  t.ok((one.body.last_used_at as string | null) !== null, 'with its activity');

  for (const [method, path] of [
    ['PATCH', '/admin/keys/declared:team-a'],
    ['DELETE', '/admin/keys/declared:team-a'],
    ['POST', '/admin/keys/declared:team-a/disable'],
    ['POST', '/admin/keys/declared:team-a/rotate'],
  ] as const) {
    isError(
      t,
      await admin(method, path, method === 'PATCH' ? { description: 'x' } : {}),
      409,
      'key_declared',
      'gateway.yaml',
    );
  }
  t.equal((await postJson(chat, ask, TEAM_A)).status, 200, 'still works after the refused changes');
});
