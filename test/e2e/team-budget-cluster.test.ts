/**
 * One team's budget spent through three real gateway processes sharing Redis: two keys of the team call
 * through every instance at once until every instance refuses, naming the team's budget. Together they
 * overspend by less than one call's cost (the budget's edge, as one instance alone), and each threshold
 * alert reaches a real webhook receiver once, signed, however many instances counted the spend.
 */
import t from 'tap';
import { startRedisCluster } from '../helpers/cluster';
import { getJson, postJson } from '../helpers/http';
import { scrape } from '../helpers/metrics';
import { webhookReceiver } from '../helpers/webhook-receiver';

const BUDGET = 3_000; // micro-units: a dozen or so calls
const SECRET = 'team-budget-alerts-secret';
const ask = { model: 'modela-5.5', max_tokens: 20, messages: [{ role: 'user', content: 'Say hello' }] };

interface UsageRow {
  readonly cost_micros: number | null;
  readonly team_id?: string;
}

void t.test("three instances spend one team's budget exactly, and alert once per threshold", async (t) => {
  const receiver = await webhookReceiver(t, SECRET);
  const cluster = await startRedisCluster(t, {
    rateLimit: { backend: 'redis' },
    team: { budget: { amount_micros: BUDGET, period: 'total' } },
    adjust: (doc) => {
      doc.prices = { 'modela-*': { input_per_mtok: 1.25, output_per_mtok: 10 } };
      doc.alerts = { thresholds: [50, 80, 100], webhooks: [{ url: receiver.url, secret: SECRET }] };
    },
  });
  const keys = [cluster.key, cluster.teamMateKey!];
  const refusals: string[] = [];
  let admitted = 0;
  // Rounds of six calls at once (two keys × three instances) until a whole round is refused.
  for (let round = 0; round < 40; round++) {
    const answers = await Promise.all(
      cluster.urls.flatMap((url) => keys.map((key) => postJson(`${url}/v1/chat/completions`, ask, key))),
    );
    for (const res of answers) {
      if (res.status === 200) admitted++;
      else {
        t.equal(res.status, 429, 'a refusal is 429');
        const error = res.body.error as { code?: string; message?: string };
        t.equal(error.code, 'budget_exhausted');
        refusals.push(error.message ?? '');
      }
    }
    if (answers.every((res) => res.status === 429)) break;
  }
  t.ok(admitted > 5, `${admitted} calls were served before the budget ran out`);
  t.ok(refusals.length >= keys.length * cluster.urls.length, 'then every instance refused both keys');
  t.ok(
    refusals.every((m) => /^this API key's team's budget is spent/.test(m)),
    "every refusal names the team's budget",
  );

  // Each instance's own records of the team: together, the team's spend.
  const records: UsageRow[] = [];
  for (const adminUrl of cluster.adminUrls) {
    const res = await getJson<{ data: UsageRow[] }>(
      `${adminUrl}/admin/usage?team_id=${cluster.teamId!}&limit=1000`,
      cluster.adminToken,
    );
    t.equal(res.status, 200);
    records.push(...res.body.data);
  }
  t.equal(records.length, admitted, 'one record per call served, each with the team');
  const costs = records.map((r) => r.cost_micros ?? 0);
  const spent = costs.reduce((a, b) => a + b, 0);
  t.ok(spent >= BUDGET, `the team spent its budget: ${spent} ≥ ${BUDGET}`);
  t.ok(
    spent < BUDGET + Math.max(...costs),
    `and overspent by less than one call: ${spent} < ${BUDGET} + ${Math.max(...costs)}`,
  );

  const alerts = await receiver.waitFor(3, 15_000);
  // An alert is sent by the instance that claimed its crossing on Redis, once claimed: a duplicate
  // needs a second claim. Each instance hears of its spend and claims on its one Redis connection, whose
  // answers come in order; two calls decided on it (refused: the budget is spent) come back only after
  // every claim the instance had begun is answered and counted.
  for (const url of cluster.urls) {
    for (let i = 0; i < 2; i++) {
      t.equal((await postJson(`${url}/v1/chat/completions`, ask, keys[i])).status, 429, 'still refused');
    }
  }
  const claims = await Promise.all(
    cluster.adminUrls.map(async (url) =>
      (await scrape(url)).value('gateway_alert_crossings_total', { result: 'claimed' }),
    ),
  );
  t.equal(
    claims.reduce((a, b) => a + b, 0),
    3,
    `three crossings claimed in all (${claims.join(', ')}): one per threshold`,
  );
  t.equal(receiver.received.length, 3, 'three alerts in all: one per threshold');
  t.strictSame(
    alerts.map((a) => a.body.threshold_percent).sort((a, b) => Number(a) - Number(b)),
    [50, 80, 100],
  );
  for (const alert of alerts) {
    t.ok(alert.verified, `the ${String(alert.body.threshold_percent)}% alert is signed`);
    t.strictSame(alert.body.subject, { kind: 'team', id: cluster.teamId });
  }
});
