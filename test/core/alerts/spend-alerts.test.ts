/**
 * Spend alerts end to end: real gateways observe spend changes and POST signed alerts to a real receiver
 * (node:http) that verifies each signature; several gateways share one Redis as instances do. A check
 * that no more deliveries come waits until the gateway's metrics account for every crossing observed
 * (claimed here or elsewhere) and every delivery begun (ended): nothing is left that could send one.
 * The wait between attempts that a receiver's Retry-After asks for is timed on a clock the test moves.
 */
import t from 'tap';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import type { SpendChange } from '../../../core/billing/spend-change';
import { monthStart, nextMonthStart } from '../../../core/billing/budget-period';
import {
  startTestGateway,
  testConfig,
  type ConfigDoc,
  type Teardown,
  type TestGateway,
} from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { scrape } from '../../helpers/metrics';
import { patientRedis } from '../../helpers/patient-redis';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';
import { webhookReceiver, type Answer, type WebhookReceiver } from '../../helpers/webhook-receiver';
import type { StartOptions } from '../../../core/boot/gateway';
import { buildConfig } from '../../../config/load';
import { SpendAlerts } from '../../../core/alerts/spend-alerts';
import { GatewayMetrics } from '../../../core/observability/metrics';
import type { ClaimStore } from '../../../core/stores/claim-store';
import { manualClock } from '../../helpers/clock';
import { capturingLogger } from '../../helpers/stores';
import { until } from '../../helpers/wait';

const SECRET = 'whsec-test-0123456789abcdef';
const AMOUNT = 10_000_000;
/** Quick retries, so a test of several attempts takes milliseconds. */
const FAST_RETRY = { attempts: 4, first: '20ms', max: '100ms' };

let subjects = 0;
/** A change of a fresh key's monthly spend (this month), from `before` to `after` percent of its budget. */
function spendChange(before: number, after: number, over: Partial<SpendChange> = {}): SpendChange {
  return {
    subject: { kind: 'key', id: `sk-alert${String(++subjects).padStart(3, '0')}` },
    budget: { amount_micros: AMOUNT, period: 'month' },
    periodStart: monthStart(Date.now()),
    before: (AMOUNT * before) / 100,
    after: (AMOUNT * after) / 100,
    ...over,
  };
}

/** A gateway whose alerts go to `receiver`; `alerts` adds to (or replaces) the section's settings. */
async function alertingGateway(
  t: Teardown,
  receiver: WebhookReceiver,
  alerts: ConfigDoc = {},
  more: (doc: ConfigDoc) => void = () => undefined,
  options: StartOptions = {},
): Promise<TestGateway> {
  return startTestGateway(
    t,
    (doc) => {
      doc.alerts = {
        webhooks: [{ url: receiver.url, secret: '${ALERTS_SECRET}' }],
        retry: FAST_RETRY,
        ...alerts,
      };
      more(doc);
    },
    options,
    { ALERTS_SECRET: SECRET },
  );
}

/** What the alerts of some gateways have dealt with, as their metrics count it. */
interface Accounted {
  /** Crossings observed and claimed, here or elsewhere (or dropped, or their claim failed). */
  readonly crossings: number;
  /** Deliveries ended: delivered, refused by the receiver, or given up. */
  readonly deliveries: number;
}

async function accounted(adminUrls: readonly string[]): Promise<Accounted> {
  const scrapes = await Promise.all(adminUrls.map((url) => scrape(url)));
  const sum = (name: string) => scrapes.reduce((total, m) => total + m.value(name), 0);
  return {
    crossings: sum('gateway_alert_crossings_total'),
    deliveries: sum('gateway_alert_deliveries_total'),
  };
}

/**
 * Waits until the alerts of the gateways at `adminUrls` have dealt with exactly what `expected` says:
 * each crossing observed is claimed (or not) and each delivery of a claimed one has ended, retries
 * included. Nothing is left queued then, so a delivery that should not happen cannot still come.
 */
async function settled(adminUrls: readonly string[], expected: Accounted): Promise<void> {
  await until(
    () => accounted(adminUrls),
    (a) => a.crossings === expected.crossings && a.deliveries === expected.deliveries,
    { what: `${expected.crossings} crossings and ${expected.deliveries} deliveries dealt with` },
  );
}

async function receiverAnswering(t: Teardown, answers: readonly Answer[]): Promise<WebhookReceiver> {
  return webhookReceiver(t, SECRET, (n) => answers[Math.min(n, answers.length - 1)]!);
}

t.test('one signed delivery per crossing, with the documented body and headers', async (t) => {
  const receiver = await webhookReceiver(t, SECRET);
  const { gateway } = await alertingGateway(t, receiver);
  const change = spendChange(40, 60);
  gateway.observeSpend(change);
  const [got] = await receiver.waitFor(1);
  t.ok(got!.verified, 'the signature verifies with the shared secret, within the tolerance');
  t.equal(got!.headers['content-type'], 'application/json');
  t.match(got!.headers['x-gateway-event-id'], /^evt_[0-9a-f]{32}$/);
  t.match(got!.headers['x-gateway-signature'], /^t=\d+,v1=[0-9a-f]{64}$/);
  t.same(got!.body, {
    id: got!.headers['x-gateway-event-id'],
    type: 'budget.threshold_crossed',
    subject: change.subject,
    threshold_percent: 50,
    budget: change.budget,
    period_start: new Date(change.periodStart).toISOString(),
    spent_micros: change.after,
    created_at: got!.body.created_at,
  });
  t.ok(Math.abs(Date.parse(got!.body.created_at as string) - Date.now()) < 10_000, 'created_at is now');

  gateway.observeSpend(change); // the same crossing observed again
  gateway.observeSpend({ ...change, before: change.after, after: (AMOUNT * 70) / 100 }); // crosses nothing
  await settled([gateway.adminUrl], { crossings: 2, deliveries: 1 });
  t.equal(receiver.received.length, 1, 'one delivery for the crossing, none for the rest');
  const metrics = await scrape(gateway.adminUrl);
  t.equal(metrics.value('gateway_alert_crossings_total', { result: 'claimed' }), 1);
  t.equal(metrics.value('gateway_alert_crossings_total', { result: 'claimed_elsewhere' }), 1);
  t.equal(metrics.value('gateway_alert_deliveries_total', { outcome: 'delivered' }), 1);
});

t.test('a jump past several thresholds sends each once', async (t) => {
  const receiver = await webhookReceiver(t, SECRET);
  const { gateway } = await alertingGateway(t, receiver);
  const change = spendChange(0, 120);
  gateway.observeSpend(change);
  const got = await receiver.waitFor(3);
  await settled([gateway.adminUrl], { crossings: 3, deliveries: 3 });
  t.equal(receiver.received.length, 3, 'three deliveries');
  t.same(
    got.map((r) => r.body.threshold_percent).sort((a, b) => Number(a) - Number(b)),
    [50, 80, 100],
  );
  t.equal(new Set(got.map((r) => r.body.id)).size, 3, 'each its own event id');
  t.ok(got.every((r) => r.verified && r.body.spent_micros === change.after));
});

t.test("a webhook's own thresholds and subjects", async (t) => {
  const keys = await webhookReceiver(t, SECRET);
  const teams = await webhookReceiver(t, SECRET);
  const { gateway } = await alertingGateway(t, keys, {
    webhooks: [
      { url: keys.url, secret: SECRET, subjects: ['key'], thresholds: [90] },
      { url: teams.url, secret: SECRET, subjects: ['team'] },
    ],
  });
  gateway.observeSpend(spendChange(0, 95));
  gateway.observeSpend(spendChange(0, 60, { subject: { kind: 'team', id: 'team-red' } }));
  await keys.waitFor(1);
  await teams.waitFor(1);
  await settled([gateway.adminUrl], { crossings: 2, deliveries: 2 });
  t.same(
    keys.received.map((r) => r.body.threshold_percent),
    [90],
    'the key webhook: its own threshold, keys only',
  );
  t.same(
    teams.received.map((r) => [(r.body.subject as { kind: string }).kind, r.body.threshold_percent]),
    [['team', 50]],
    'the team webhook: the default thresholds, teams only',
  );
});

t.test('retried after 500s until delivered, with the same event and body', async (t) => {
  const receiver = await receiverAnswering(t, [{ status: 500 }, { status: 503 }, { status: 200 }]);
  const { logger, lines } = capturingLogger();
  const withCredentials = receiver.url.replace('http://', 'http://hook-user:hook-pass@') + '?token=abc';
  const { gateway } = await alertingGateway(
    t,
    receiver,
    { webhooks: [{ url: withCredentials, secret: SECRET }] },
    undefined,
    { logger },
  );
  gateway.observeSpend(spendChange(0, 55));
  const got = await receiver.waitFor(3);
  await settled([gateway.adminUrl], { crossings: 1, deliveries: 1 });
  t.equal(receiver.received.length, 3, 'two failures, then the delivery; no attempt after it');
  t.equal(new Set(got.map((r) => r.raw)).size, 1, 'the same body each time');
  t.equal(new Set(got.map((r) => r.headers['x-gateway-event-id'])).size, 1, 'the same event id');
  t.ok(
    got.every((r) => r.verified),
    'each attempt signed',
  );
  const metrics = await scrape(gateway.adminUrl);
  t.equal(metrics.value('gateway_alert_delivery_attempts_total', { result: '5xx' }), 2);
  t.equal(metrics.value('gateway_alert_delivery_attempts_total', { result: '2xx' }), 1);
  t.equal(metrics.value('gateway_alert_deliveries_total', { outcome: 'delivered' }), 1);
  const attempts = lines.filter((l) => l.msg.startsWith('alert deliver'));
  t.same(
    attempts.map((l) => [l.msg, l.attempt, l.status, typeof l.next_retry_ms]),
    [
      ['alert delivery failed; retrying', 1, 500, 'number'],
      ['alert delivery failed; retrying', 2, 503, 'number'],
      ['alert delivered', 3, 200, 'undefined'],
    ],
    'each attempt logged, with its status and the next retry',
  );
  t.ok(
    attempts.every((l) => l.url === receiver.url && l.event_id === got[0]!.body.id),
    'with the event id and the URL without its credentials or query',
  );
  t.equal(
    got[0]!.headers.authorization,
    `Basic ${Buffer.from('hook-user:hook-pass').toString('base64')}`,
    "the URL's credentials go as Basic authentication",
  );
  t.notMatch(JSON.stringify(lines), /hook-pass|token=abc|whsec/, 'no credential or secret in any line');
});

t.test('a 400 is final: not retried', async (t) => {
  const receiver = await receiverAnswering(t, [{ status: 400 }, { status: 200 }]);
  const { gateway } = await alertingGateway(t, receiver);
  gateway.observeSpend(spendChange(0, 55));
  await receiver.waitFor(1);
  await settled([gateway.adminUrl], { crossings: 1, deliveries: 1 });
  t.equal(receiver.received.length, 1, 'one attempt');
  const metrics = await scrape(gateway.adminUrl);
  t.equal(metrics.value('gateway_alert_deliveries_total', { outcome: 'rejected' }), 1);
  t.equal(metrics.value('gateway_alert_deliveries_total', { outcome: 'delivered' }), 0);
});

t.test('a receiver that keeps failing gets retry.attempts attempts', async (t) => {
  const receiver = await receiverAnswering(t, [{ status: 502 }]);
  const { gateway } = await alertingGateway(t, receiver);
  gateway.observeSpend(spendChange(0, 55));
  await receiver.waitFor(FAST_RETRY.attempts);
  await settled([gateway.adminUrl], { crossings: 1, deliveries: 1 });
  t.equal(receiver.received.length, FAST_RETRY.attempts, 'no attempt past the last');
  const metrics = await scrape(gateway.adminUrl);
  t.equal(metrics.value('gateway_alert_deliveries_total', { outcome: 'failed' }), 1);
});

/** Claims in this test's memory, for alerts of one instance. */
function memoryClaims(): ClaimStore {
  const held = new Map<string, string>();
  return {
    claim(name, owner) {
      const holder = held.get(name) ?? owner;
      held.set(name, holder);
      return Promise.resolve(holder === owner);
    },
    close: () => Promise.resolve(),
  };
}

t.test("a 429's Retry-After is honoured: the next attempt waits the time asked", async (t) => {
  const receiver = await receiverAnswering(t, [
    { status: 429, headers: { 'retry-after': '1' } },
    { status: 200 },
  ]);
  const { logger, lines } = capturingLogger();
  // The alerts' clock and timers, moved by the test; it starts now, as signatures are checked against
  // the receiver's own clock.
  const clock = manualClock(Date.now());
  const config = buildConfig({
    ...testConfig('http://127.0.0.1:9', '/nonexistent'),
    alerts: {
      webhooks: [{ url: receiver.url, secret: SECRET }],
      retry: { attempts: 3, first: '10ms', max: '5s' },
    },
  });
  const alerts = new SpendAlerts(config.alerts, {
    claims: memoryClaims(),
    logger,
    metrics: new GatewayMetrics(),
    clock: clock.read,
    timers: clock,
  });
  t.teardown(() => alerts.stop(clock.now));
  alerts.observe(spendChange(0, 55));
  const [first] = await receiver.waitFor(1);
  // The wait for the next attempt begins as its line is written.
  const retrying = await until(
    () => lines.find((l) => l.msg === 'alert delivery failed; retrying'),
    (line) => line !== undefined,
    { what: 'the failed attempt logged' },
  );
  t.equal(retrying?.next_retry_ms, 1_000, 'the next attempt is due in the second asked');
  await clock.tickAsync(999);
  t.equal(clock.countTimers(), 1, 'a millisecond before it, the attempt still waits');
  t.equal(receiver.received.length, 1, 'and nothing more was sent');
  await clock.tickAsync(1);
  const [, second] = await receiver.waitFor(2);
  t.equal(second!.raw, first!.raw, 'then the same alert again, delivered');
});

t.test('a slow receiver never delays observe, nor the requests', async (t) => {
  const receiver = await receiverAnswering(t, [{ status: 200, delayMs: 1_500 }]);
  const { gateway, url, key } = await alertingGateway(t, receiver);
  const started = performance.now();
  for (let i = 0; i < 50; i++) gateway.observeSpend(spendChange(0, 60));
  const spent = performance.now() - started;
  t.ok(spent < 100, `50 crossings observed in ${spent.toFixed(1)} ms`);
  t.equal(receiver.received.length, 0, 'observe only queued: nothing was sent during it');
  await receiver.waitFor(1);
  const answered = performance.now();
  const res = await postJson(
    `${url}/v1/chat/completions`,
    { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] },
    key,
  );
  t.equal(res.status, 200, 'a request is served while the receiver holds every delivery');
  t.ok(performance.now() - answered < 1_000, 'without waiting for the receiver');
  await receiver.waitFor(50);
});

t.test('three gateways sharing one Redis send a crossing once', async (t) => {
  const receiver = await webhookReceiver(t, SECRET);
  const prefix = redisPrefix(t);
  const shared = (doc: ConfigDoc) => {
    doc.redis = { url: TEST_REDIS_URL, key_prefix: prefix };
    patientRedis(doc); // a claim is answered, however busy the machine, rather than retried and given up
  };
  const gateways = await Promise.all([1, 2, 3].map(() => alertingGateway(t, receiver, {}, shared)));
  const change = spendChange(30, 85);
  for (const { gateway } of gateways) gateway.observeSpend(change);
  await receiver.waitFor(2);
  // Each gateway observed both crossings: six claims in all, two won, each delivered once.
  await settled(
    gateways.map(({ gateway }) => gateway.adminUrl),
    { crossings: 6, deliveries: 2 },
  );
  t.same(
    receiver.received.map((r) => r.body.threshold_percent).sort((a, b) => Number(a) - Number(b)),
    [50, 80],
    'one delivery per threshold, from one gateway',
  );
  const claimed = await Promise.all(
    gateways.map(async ({ gateway }) =>
      (await scrape(gateway.adminUrl)).value('gateway_alert_crossings_total', { result: 'claimed' }),
    ),
  );
  t.equal(
    claimed.reduce((a, b) => a + b, 0),
    2,
    `two claims won in all (${claimed.join(', ')}), the rest claimed elsewhere`,
  );
});

t.test('a new month and a changed budget re-arm the thresholds', async (t) => {
  const receiver = await webhookReceiver(t, SECRET);
  const { gateway } = await alertingGateway(t, receiver);
  const thisMonth = spendChange(0, 60);
  gateway.observeSpend(thisMonth);
  await receiver.waitFor(1);
  const nextMonth = { ...thisMonth, periodStart: nextMonthStart(Date.now()) };
  gateway.observeSpend(nextMonth);
  const [, second] = await receiver.waitFor(2);
  t.equal(
    second!.body.period_start,
    new Date(nextMonth.periodStart).toISOString(),
    'next month alerts again',
  );

  const total = spendChange(0, 60, { budget: { amount_micros: AMOUNT, period: 'total' }, periodStart: 0 });
  gateway.observeSpend(total);
  const [, , third] = await receiver.waitFor(3);
  t.equal(third!.body.period_start, null, 'a total budget has no period start');
  gateway.observeSpend(total);
  const raised = { amount_micros: AMOUNT * 2, period: 'total' } as const;
  gateway.observeSpend({ ...total, budget: raised, before: AMOUNT * 0.9, after: AMOUNT * 1.1 });
  const [, , , fourth] = await receiver.waitFor(4);
  t.same(
    [fourth!.body.threshold_percent, fourth!.body.budget],
    [50, raised],
    'the raised budget alerts at its own 50%',
  );
  // This month's, next month's, the total's twice, the raised budget's: five crossings, four sent.
  await settled([gateway.adminUrl], { crossings: 5, deliveries: 4 });
  t.equal(receiver.received.length, 4, 'the same total crossing again sends nothing');
});

t.test('claims survive a restart of an embedded gateway', async (t) => {
  const receiver = await webhookReceiver(t, SECRET);
  const first = await alertingGateway(t, receiver);
  const change = spendChange(10, 60);
  first.gateway.observeSpend(change);
  await receiver.waitFor(1);
  await first.gateway.close(1_000);
  const again = await alertingGateway(t, receiver, {}, (doc) => {
    (doc.storage as { data_dir: string }).data_dir = first.dataDir;
  });
  again.gateway.observeSpend(change);
  await settled([again.gateway.adminUrl], { crossings: 1, deliveries: 0 });
  t.equal(receiver.received.length, 1, 'the restarted gateway finds the claim and sends nothing');
});

t.test('no webhooks: alerts are off', async (t) => {
  const receiver = await webhookReceiver(t, SECRET);
  const { gateway } = await startTestGateway(t);
  // Without a webhook the gateway has no alerts to queue anything in: observing is all there is.
  gateway.observeSpend(spendChange(0, 150));
  t.equal(receiver.received.length, 0);
  const metrics = await scrape(gateway.adminUrl);
  t.equal(metrics.value('gateway_alert_crossings_total'), 0, 'nothing was even claimed');
});

t.test('stopping lets a delivery under way finish within the grace period', async (t) => {
  const { logger, lines } = capturingLogger();
  const receiver = await receiverAnswering(t, [{ status: 200, delayMs: 500 }]);
  const { gateway } = await alertingGateway(t, receiver, {}, undefined, { logger });
  gateway.observeSpend(spendChange(0, 60));
  await receiver.waitFor(1); // the request is in; its answer comes in 500 ms
  await gateway.close(5_000);
  t.ok(
    lines.some((l) => l.msg === 'alert delivered'),
    'the delivery under way finished before the gateway closed',
  );
});

t.test('past the grace period a delivery under way is abandoned', async (t) => {
  const { logger, lines } = capturingLogger();
  const receiver = await receiverAnswering(t, [{ status: 200, delayMs: 10_000 }]);
  const { gateway } = await alertingGateway(t, receiver, { timeout: '30s' }, undefined, { logger });
  gateway.observeSpend(spendChange(0, 60));
  await receiver.waitFor(1);
  const started = Date.now();
  await gateway.close(0);
  t.ok(Date.now() - started < 5_000, 'the close did not wait for the receiver');
  t.ok(
    lines.some((l) => l.msg === 'alert not delivered'),
    'the abandoned delivery is logged',
  );
});

type Verify = (secret: string, header: unknown, raw: string, toleranceSeconds?: number) => boolean;

/** `verifyAlert` as docs/keys-and-console.md gives it to receivers, run as written. */
function documentedVerify(): Verify {
  const page = readFileSync(join(__dirname, '../../../../docs/keys-and-console.md'), 'utf8');
  const section = page.slice(page.indexOf('## Spend alerts'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('docs/keys-and-console.md: no js block under Spend alerts');
  return runInNewContext(`${code}\nverifyAlert`, { require, Buffer }) as Verify;
}

t.test("the docs' verification accepts a delivery, and refuses it altered, mis-keyed or old", async (t) => {
  const verify = documentedVerify();
  const receiver = await webhookReceiver(t, SECRET);
  const { gateway } = await alertingGateway(t, receiver);
  gateway.observeSpend(spendChange(0, 60));
  const [got] = await receiver.waitFor(1);
  const header = got!.headers['x-gateway-signature'];
  t.equal(verify(SECRET, header, got!.raw), true, 'the delivery as received');
  t.equal(
    verify(SECRET, header, got!.raw.replace('"threshold_percent":50', '"threshold_percent":5')),
    false,
    'altered',
  );
  t.equal(verify('another-secret-0123456789', header, got!.raw), false, 'another secret');
  const old = Math.floor(Date.now() / 1000) - 600;
  const replayed = `t=${old},v1=${createHmac('sha256', SECRET).update(`${old}.${got!.raw}`).digest('hex')}`;
  t.equal(verify(SECRET, replayed, got!.raw), false, 'signed ten minutes ago: past the tolerance');
});

t.test("real calls: the budget ledger reports a key's spend, and its crossing is alerted", async (t) => {
  const receiver = await webhookReceiver(t, SECRET);
  const gw = await alertingGateway(t, receiver, {}, (doc) => {
    (doc.prices as Record<string, unknown>)['modela-5.5'] = { input_per_mtok: 1.25, output_per_mtok: 10 };
  });
  const budget = { amount_micros: 1, period: 'month' } as const;
  const { key, record } = await gw.gateway.keys.create({ budget });
  const call = () =>
    postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modela-5.5', max_tokens: 40, messages: [{ role: 'user', content: 'say something short' }] },
      key,
    );
  t.equal((await call()).status, 200, 'served while under budget');
  const got = await receiver.waitFor(3);
  await gw.gateway.usage.flush();
  const [used] = await gw.gateway.usage.list({ key_id: record.id, limit: 10 });
  t.same(
    got.map((r) => r.body.threshold_percent).sort((a, b) => Number(a) - Number(b)),
    [50, 80, 100],
    'one call past the whole budget: each threshold once',
  );
  t.ok(
    got.every(
      (r) =>
        r.verified &&
        (r.body.subject as { id: string }).id === record.id &&
        r.body.spent_micros === used?.cost_micros,
    ),
    "each names the key by its visible id, with the record's cost as the spend",
  );
  t.equal((await call()).status, 429, 'the budget is spent');
  await settled([gw.gateway.adminUrl], { crossings: 3, deliveries: 3 });
  t.equal(receiver.received.length, 3, 'a refused call crosses nothing');
});
