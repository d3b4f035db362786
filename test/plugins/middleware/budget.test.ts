/**
 * Per-key budgets over real HTTP: a key under its budget is served; once spent, 429 budget_exhausted
 * with Retry-After and nothing upstream; 20 calls at once at the edge overspend by at most one call; a
 * monthly budget counts this month's records only; keys without a budget are unaffected; raising the
 * budget (PATCH /admin/keys/{id}) re-admits the key; video submits hold their cost until their task ends;
 * an image call holds its size and quality's price.
 */
import t, { type Test } from 'tap';
import type { KeyBudget } from '../../../core/stores/key-store';
import type { UsageRecord } from '../../../core/stores/usage-store';
import { monthStart, nextMonthStart } from '../../../core/billing/budget-period';
import { isError } from '../../helpers/errors';
import { startTestGateway, testConfig, type ConfigDoc, type TestGateway } from '../../helpers/gateway';
import { buildConfig } from '../../../config/load';
import { startGateway } from '../../../core/boot/gateway';
import { postJson, type JsonResponse } from '../../helpers/http';
import { upstreamGate } from '../../helpers/upstream-gate';
import { eventually, until } from '../../helpers/wait';
import { needsWork } from '../../../core/stores/video-task';
import { submitVideo, videoBody } from '../video-helpers';

const MODEL = 'modela-5.5';

const start = (t: Test): Promise<TestGateway> =>
  startTestGateway(t, (doc) => {
    (doc.prices as Record<string, unknown>)[MODEL] = { input_per_mtok: 1.25, output_per_mtok: 10 };
  });

let seq = 0;
async function chat(gw: TestGateway, key: string): Promise<JsonResponse & { id: string }> {
  const id = `budget-${process.pid}-${seq++}`;
  const res = await postJson(
    `${gw.url}/v1/chat/completions`,
    { model: MODEL, max_tokens: 40, messages: [{ role: 'user', content: 'say something short' }] },
    key,
    { 'x-request-id': id },
  );
  return { ...res, id };
}

async function admin<T>(gw: TestGateway, method: string, path: string, body?: unknown) {
  const res = await fetch(`${gw.gateway.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.gateway.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function newKey(gw: TestGateway, budget?: KeyBudget): Promise<{ key: string; id: string }> {
  const created = await gw.gateway.keys.create(budget ? { budget } : {});
  return { key: created.key, id: created.record.id };
}

async function recordsOf(gw: TestGateway, keyId: string): Promise<UsageRecord[]> {
  await gw.gateway.usage.flush();
  return gw.gateway.usage.list({ key_id: keyId, limit: 10_000 });
}

const costOf = (records: readonly UsageRecord[]): number =>
  records.reduce((sum, r) => sum + (r.cost_micros ?? 0), 0);

/** A record written straight into the store, as an earlier process (or month) would have left it. */
function oldRecord(keyId: string, cost: number, createdAt: string, id: string): UsageRecord {
  return {
    id,
    key_id: keyId,
    model: MODEL,
    upstream: 'modela-main',
    endpoint: 'chat-completions',
    status: 200,
    stream: false,
    prompt_tokens: 1,
    completion_tokens: 1,
    total_tokens: 2,
    cost_micros: cost,
    estimated: false,
    outcome: 'ok',
    latency_ms: 1,
    created_at: createdAt,
  };
}

t.test('a total budget: served until spent, then 429 with nothing upstream; PATCH re-admits', async (t) => {
  const gw = await start(t);
  const { key, id } = await newKey(gw, { amount_micros: 300, period: 'total' });
  let served = 0;
  let refused: (JsonResponse & { id: string }) | undefined;
  for (let i = 0; i < 10 && !refused; i++) {
    const res = await chat(gw, key);
    if (res.status === 200) served++;
    else refused = res;
  }
  t.ok(served >= 2, `served while under budget (${served} calls)`);
  const spent = costOf(await recordsOf(gw, id));
  t.ok(spent >= 300, `refused only once spent (${spent} of 300)`);
  t.equal((await recordsOf(gw, id)).length, served, 'a record for each call served, none for the refusal');
  if (!refused) return t.fail('never refused');
  isError(t, refused, 429, 'budget_exhausted', 'budget is spent', 'does not reset');
  t.equal(refused.headers.get('retry-after'), '86400', 'a total budget: Retry-After of a day');
  t.equal(refused.headers.get('x-should-retry'), 'false', 'SDKs are told not to retry at once');
  t.equal(gw.sim.log.list(refused.id).length, 0, 'nothing was sent upstream');

  const again = await chat(gw, key);
  t.equal(again.status, 429, 'still refused');

  const other = await chat(gw, gw.key);
  t.equal(other.status, 200, 'a key without a budget is unaffected');
  const unbudgeted = await newKey(gw);
  for (let i = 0; i < 5; i++) t.equal((await chat(gw, unbudgeted.key)).status, 200, 'no budget: served');

  const raised = await admin<{ budget: KeyBudget }>(gw, 'PATCH', `/admin/keys/${id}`, {
    budget: { amount_micros: spent + 10_000, period: 'total' },
  });
  t.equal(raised.status, 200);
  t.equal((await chat(gw, key)).status, 200, 'a raised budget re-admits the key');
  const cleared = await admin(gw, 'PATCH', `/admin/keys/${id}`, { budget: null });
  t.equal(cleared.status, 200);
  await admin(gw, 'PATCH', `/admin/keys/${id}`, { budget: { amount_micros: 1, period: 'total' } });
  t.equal((await chat(gw, key)).status, 429, 'spend was still counted while the key had no budget');
});

t.test('20 calls at once at the edge of a budget overspend by at most one call', async (t) => {
  const gw = await start(t);
  const amount = 1_000;
  const { key, id } = await newKey(gw, { amount_micros: amount, period: 'total' });
  const first = await chat(gw, key); // reads the (empty) spend, and costs one call
  t.equal(first.status, 200);
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(Array.from({ length: 20 }, () => chat(gw, key)));
    const statuses = new Set(answers.map((a) => a.status));
    t.ok(
      [...statuses].every((s) => s === 200 || s === 429),
      `round ${round}: served or refused`,
    );
    for (const a of answers.filter((x) => x.status === 429))
      t.equal(gw.sim.log.list(a.id).length, 0, 'a refused call never went upstream');
  }
  const records = await recordsOf(gw, id);
  const maxCall = Math.max(...records.map((r) => r.cost_micros ?? 0));
  const total = costOf(records);
  t.ok(total >= amount, `the budget was reached (${total})`);
  t.ok(total <= amount + maxCall, `spent ${total} ≤ ${amount} + one call (${maxCall})`);
  t.ok(records.length > 1 && records.length < 61, `some calls served (${records.length}), not all`);
});

t.test('a monthly budget counts this month only, and says when it resets', async (t) => {
  const gw = await start(t);
  const amount = 1_000;
  const lastMonth = new Date(monthStart(Date.now()) - 1_000).toISOString();
  const thisMonth = new Date(monthStart(Date.now())).toISOString();

  // Spent a lot last month, nothing this month: served.
  const fresh = await newKey(gw, { amount_micros: amount, period: 'month' });
  gw.gateway.usage.record(oldRecord(fresh.id, 50_000, lastMonth, `old-${process.pid}-1`));
  // Spent the budget this month already (before this process started counting): refused.
  const spent = await newKey(gw, { amount_micros: amount, period: 'month' });
  gw.gateway.usage.record(oldRecord(spent.id, 40_000, lastMonth, `old-${process.pid}-2`));
  gw.gateway.usage.record(oldRecord(spent.id, amount, thisMonth, `old-${process.pid}-3`));
  await gw.gateway.usage.flush();

  t.equal((await chat(gw, fresh.key)).status, 200, "last month's spend does not count");
  const refused = await chat(gw, spent.key);
  const reset = new Date(nextMonthStart(Date.now())).toISOString();
  isError(t, refused, 429, 'budget_exhausted', 'monthly budget is spent', `resets at ${reset}`);
  const retryAfter = Number(refused.headers.get('retry-after'));
  const expected = (nextMonthStart(Date.now()) - Date.now()) / 1000;
  t.ok(
    Number.isInteger(retryAfter) && Math.abs(retryAfter - expected) < 5,
    `Retry-After (${retryAfter}) is the seconds to the next month (${Math.round(expected)})`,
  );
  t.equal(gw.sim.log.list(refused.id).length, 0, 'nothing was sent upstream');

  const total = await newKey(gw, { amount_micros: amount, period: 'total' });
  gw.gateway.usage.record(oldRecord(total.id, amount, lastMonth, `old-${process.pid}-4`));
  await gw.gateway.usage.flush();
  t.equal((await chat(gw, total.key)).status, 429, 'a total budget counts every month');
});

/** A videoa submit of 5 s at 720P: 0.10 a second in gateway.yaml, so 500,000 micro-units. */
const VIDEO_COST = 500_000;

async function submitVideos(gw: TestGateway, key: string, n: number, directives: string) {
  return Promise.all(
    Array.from({ length: n }, () =>
      submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', directives), {}, key),
    ),
  );
}

const ended = async (gw: TestGateway, ids: readonly string[]): Promise<boolean> => {
  const tasks = await Promise.all(ids.map((id) => gw.gateway.tasks.get(id)));
  return tasks.every((task) => task !== undefined && !needsWork(task));
};

t.test('10 video submits at once at the edge of a budget: each holds its cost until billed', async (t) => {
  const gw = await start(t);
  const amount = 1_600_000;
  const { key, id } = await newKey(gw, { amount_micros: amount, period: 'total' });
  const answers = await submitVideos(gw, key, 10, 'task_ms=300');
  const accepted = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 429);
  t.equal(accepted.length + refused.length, 10, 'each submit accepted or refused');
  // Held 0, 0.5, 1.0, 1.5 million when admitted: four go, the fifth finds 2.0 held ≥ 1.6.
  t.equal(accepted.length, 4, 'only the submits whose holds fit went upstream');
  for (const r of refused) isError(t, r, 429, 'budget_exhausted', 'budget is spent');
  t.equal(gw.sim.tasks.list().length, 4, 'the upstream got four tasks');
  const ids = accepted.map((a) => String(a.body.id));
  await eventually(() => ended(gw, ids), 10_000);
  const records = await recordsOf(gw, id);
  t.equal(records.length, 4, 'each task billed once');
  const total = costOf(records);
  t.equal(total, 4 * VIDEO_COST, 'billed at 0.5 each');
  t.ok(total <= amount + VIDEO_COST, `spent ${total} ≤ ${amount} + one task (${VIDEO_COST})`);
  const after = await submitVideos(gw, key, 1, 'task_ms=50');
  isError(t, after[0]!, 429, 'budget_exhausted');
});

t.test("a failed task's hold is released: the key may submit again", async (t) => {
  const gw = await start(t);
  const { key, id } = await newKey(gw, { amount_micros: VIDEO_COST, period: 'total' });
  // Two seconds to fail: the next submit comes while it still holds, however busy the machine.
  const [first] = await submitVideos(gw, key, 1, 'task_ms=2000 fail');
  t.equal(first!.status, 200, 'the first submit holds the whole budget');
  const [second] = await submitVideos(gw, key, 1, 'task_ms=50');
  isError(t, second!, 429, 'budget_exhausted');
  await eventually(() => ended(gw, [String(first!.body.id)]), 10_000);
  t.equal((await gw.gateway.tasks.get(String(first!.body.id)))?.status, 'failed');
  // The hold goes when the task's end is durable in the store, a moment after it reads as failed.
  let third: JsonResponse = { status: 0 } as JsonResponse;
  await eventually(
    async () => ((third = (await submitVideos(gw, key, 1, 'task_ms=50'))[0]!), third.status === 200),
  );
  t.equal(third.status, 200, 'the failed task cost nothing and holds nothing');
  await eventually(() => ended(gw, [String(third.body.id)]), 10_000);
  t.equal(costOf(await recordsOf(gw, id)), VIDEO_COST, 'only the task that succeeded was billed');
});

t.test("an image call holds n images at its size and quality's price", async (t) => {
  const IMAGE = 'modelb-3.1-flash-image-preview';
  const gate = await upstreamGate(t);
  const gw = await startTestGateway(t, (doc, sim) => {
    (doc.prices as Record<string, unknown>)[IMAGE] = {
      per_image: { '1024x1024': { low: 0.011, high: 0.167 } },
    };
    gate.between(doc, sim.url);
  });
  const image = (key: string, quality: string, id: string) =>
    postJson(
      `${gw.url}/v1/images/generations`,
      { model: IMAGE, prompt: 'an owl', size: '1024x1024', quality },
      key,
      { 'x-request-id': id },
    );
  // While a call is under way its hold counts: a high-quality image's hold spends this budget, a low one's does not.
  for (const [quality, second] of [
    ['low', 200],
    ['high', 429],
  ] as const) {
    const { key } = await newKey(gw, { amount_micros: 100_000, period: 'total' });
    const held = `image-${quality}-${process.pid}`;
    gate.hold((id) => id === held);
    const first = image(key, quality, held);
    // Upstream, so past the budget stage with its hold taken; it stays there until released.
    await until(
      () => gate.waiting,
      (ids) => ids.includes(held),
      { what: `the ${quality} image under way` },
    );
    t.equal(
      (await image(key, 'low', `${held}-second`)).status,
      second,
      `while a ${quality} image is under way`,
    );
    gate.release();
    t.equal((await first).status, 200);
  }
});

t.test('a restart restores the holds of video tasks still under way', async (t) => {
  const noPoller = (doc: ConfigDoc): void => {
    (doc.video as Record<string, unknown>).poller = false; // the task stays under way across the restart
  };
  const gw = await startTestGateway(t, noPoller);
  const { key, id } = await newKey(gw, { amount_micros: VIDEO_COST, period: 'total' });
  const [first] = await submitVideos(gw, key, 1, 'task_ms=50');
  t.equal(first!.status, 200, 'the first submit holds the whole budget');
  await gw.gateway.close(1_000);

  const doc = testConfig(gw.sim.url, gw.dataDir);
  noPoller(doc);
  const again = await startGateway(buildConfig(doc, {}));
  t.teardown(() => again.close(1_000));
  const restarted = { ...gw, gateway: again, url: again.url };
  const [second] = await submitVideos(restarted, key, 1, 'task_ms=50');
  isError(t, second!, 429, 'budget_exhausted');
  t.equal(gw.sim.tasks.list().length, 1, 'the upstream got only the first task');
  t.equal((await recordsOf(restarted, id)).length, 0, 'nothing billed yet: the hold alone refused it');
});
