/**
 * Teams on the request path of one gateway (memory rate limits): the team's allowed models apply with
 * the key's own, its rpm is counted over all its keys with the 429 naming the team, a change to the team
 * applies at once, and a key whose team does not exist is refused.
 */
import t from 'tap';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { isError } from '../../helpers/errors';
import { getJson, postJson } from '../../helpers/http';
import type { NewTeam } from '../../../core/stores/team-store';

const ask = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });
const chat = (gw: TestGateway, key: string, model = 'modela-5.5') =>
  postJson(`${gw.url}/v1/chat/completions`, ask(model), key);

/** A minute-long cache: only the team event can make a change apply at once. */
const longCache = (doc: Record<string, unknown>): void => {
  doc.keys = { cache_ttl: '60s' };
};

const patchTeam = (gw: TestGateway, id: string, body: unknown): Promise<Response> =>
  fetch(`${gw.gateway.adminUrl}/admin/teams/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${gw.gateway.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const newTeam = (gw: TestGateway, spec: NewTeam) => gw.gateway.teams.create(spec);

t.test("the team's allowed models apply with the key's own; the 403 says which refused", async (t) => {
  const gw = await startTestGateway(t, longCache);
  const team = await newTeam(gw, { name: 'only-modela', allowed_models: ['modela-5.5', 'modelb-3.5-flash'] });
  const member = await gw.createKey({ team_id: team.id });
  const narrow = await gw.createKey({
    team_id: team.id,
    allowed_models: ['modelb-3.5-flash', 'modelc-3.6-flash'],
  });

  t.equal((await chat(gw, member)).status, 200, 'a model the team allows');
  isError(
    t,
    await chat(gw, member, 'modelc-3.6-flash'),
    403,
    'model_not_allowed',
    "this API key's team may not use model 'modelc-3.6-flash'",
  );
  t.equal((await chat(gw, narrow, 'modelb-3.5-flash')).status, 200, 'a model both lists allow');
  isError(
    t,
    await chat(gw, narrow, 'modela-5.5'),
    403,
    'model_not_allowed',
    "this API key may not use model 'modela-5.5'",
  );
  isError(
    t,
    await chat(gw, narrow, 'modelc-3.6-flash'),
    403,
    'model_not_allowed',
    "team may not use model 'modelc-3.6-flash'",
  );
  t.equal(
    (await chat(gw, gw.key, 'modelc-3.6-flash')).status,
    200,
    'a key without a team is not limited by it',
  );

  const models = await getJson<{ data: { id: string }[] }>(`${gw.url}/v1/models`, member);
  t.strictSame(
    models.body.data.map((m) => m.id).sort(),
    ['modela-5.5', 'modelb-3.5-flash'],
    '/v1/models lists what the team allows',
  );
  const both = await getJson<{ data: { id: string }[] }>(`${gw.url}/v1/models`, narrow);
  t.strictSame(
    both.body.data.map((m) => m.id),
    ['modelb-3.5-flash'],
    'and what both lists allow',
  );

  t.equal((await patchTeam(gw, team.id, { allowed_models: [] })).status, 200);
  t.equal(
    (await chat(gw, member, 'modelc-3.6-flash')).status,
    200,
    'the change applies at once, not after the cache TTL',
  );
});

t.test("a team's rpm is shared by its keys, and the 429 names the team", async (t) => {
  const gw = await startTestGateway(t, longCache);
  const team = await newTeam(gw, { name: 'three-a-minute', rate_limit_rpm: 3 });
  const a = await gw.createKey({ team_id: team.id });
  const b = await gw.createKey({ team_id: team.id });
  for (const [i, key] of [a, b, a].entries())
    t.equal((await chat(gw, key)).status, 200, `call ${i + 1} of 3`);
  const refused = await chat(gw, b);
  isError(t, refused, 429, 'rate_limited', "this API key's team's rate limit reached");
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'with Retry-After');
  isError(t, await chat(gw, a), 429, 'rate_limited', "team's rate limit");
  t.equal((await chat(gw, gw.key)).status, 200, 'a key outside the team is not counted with it');

  const own = await gw.createKey({
    team_id: (await newTeam(gw, { name: 'roomy', rate_limit_rpm: 100 })).id,
    rate_limit_rpm: 1,
  });
  t.equal((await chat(gw, own)).status, 200);
  isError(t, await chat(gw, own), 429, 'rate_limited', "this API key's rate limit reached");

  t.equal((await patchTeam(gw, team.id, { rate_limit_rpm: 5 })).status, 200);
  t.equal((await chat(gw, b)).status, 200, 'a raised team limit admits at once');
});

t.test('a key whose team does not exist is refused: 403 team_not_found', async (t) => {
  const secret = `sk-${'t'.repeat(40)}`;
  const gw = await startTestGateway(t, (doc) => {
    doc.keys = { declared: [{ name: 'orphan', secret, team_id: 'team-doesnotexist' }] };
  });
  isError(t, await chat(gw, secret), 403, 'team_not_found', "this API key's team does not exist");
  isError(t, await chat(gw, secret), 403, 'team_not_found', 'does not exist');
  const declared = await fetch(`${gw.gateway.adminUrl}/admin/keys/declared`, {
    headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
  });
  const body = (await declared.json()) as { data: { id: string; team_id?: string }[] };
  t.equal(body.data[0]?.team_id, 'team-doesnotexist', 'a declared key shows its team_id');
});
