/**
 * The Redis budget ledger against real Redis: three ledgers standing for three instances share one
 * budget exactly (admissions, holds, spend, the team's too), read a period's spend from the store once,
 * let a dead instance's holds lapse, release a video task's hold once wherever it ends, tell spend
 * changes, and answer from local counts while Redis is down, counting what it missed once it is back.
 */
import pino from 'pino';
import t from 'tap';
import type { BudgetAdmission, BudgetSubject } from '../../../core/billing/budget-ledger';
import { MemoryBudgetLedger, type SpentSince } from '../../../core/billing/memory-budget-ledger';
import { RedisBudgetLedger, type RedisLedgerTiming } from '../../../core/billing/redis-budget-ledger';
import type { SpendChange } from '../../../core/billing/spend-change';
import { RedisLink } from '../../../core/redis/redis-link';
import { eventually } from '../../helpers/wait';
import { privateRedis, redisPrefix, TEST_REDIS_URL, type PrivateRedis } from '../../helpers/redis';
import type { Teardown } from '../../helpers/gateway';

const silent = pino({ level: 'silent' });
const TIMING: RedisLedgerTiming = { leaseMs: 60_000, seedAbandonedMs: 60_000, retryMs: 50 };

const key = (id: string, amount: number, period: 'total' | 'month' = 'total'): BudgetSubject => ({
  kind: 'key',
  id,
  budget: { amount_micros: amount, period },
});
const team = (id: string, amount: number): BudgetSubject => ({
  kind: 'team',
  id,
  budget: { amount_micros: amount, period: 'total' },
});
const now = (): string => new Date().toISOString();
/** Passes once `predicate` holds (within 5 s), as the assertion `what`. */
async function until(
  t: { pass(message: string): void },
  predicate: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  await eventually(predicate, 5_000);
  t.pass(what);
}
const admitted = (answers: readonly BudgetAdmission[]): number => answers.filter((a) => a.admitted).length;

/**
 * `n` ledgers on one Redis prefix, each with its own link and local ledger, over one store's spend. A
 * command not answered within its timeout is answered from local counts, which know nothing of the other
 * instances: 5 s, so that a test of exact sharing is not turned into one of the fallback by a machine
 * busy enough to stall an event loop for a second (a full parallel test run did).
 */
async function ledgers(
  t: Teardown,
  n: number,
  spentSince: SpentSince,
  options: { url?: string; key_prefix?: string; timing?: RedisLedgerTiming; commandTimeout?: number } = {},
): Promise<RedisBudgetLedger[]> {
  const key_prefix = options.key_prefix ?? redisPrefix(t, options.url);
  const command_timeout = options.commandTimeout ?? 5_000;
  const links = await Promise.all(
    Array.from({ length: n }, () =>
      RedisLink.connect({ url: options.url ?? TEST_REDIS_URL, key_prefix, command_timeout }, silent, 500),
    ),
  );
  t.teardown(() => Promise.all(links.map((l) => l.close())));
  return links.map((link) => {
    const ledger = new RedisBudgetLedger(
      link,
      new MemoryBudgetLedger(spentSince),
      spentSince,
      silent,
      options.timing ?? TIMING,
    );
    t.teardown(() => ledger.stop());
    return ledger;
  });
}

t.test(
  'three instances at the edge of one budget admit exactly what fits, and read the store once',
  async (t) => {
    let reads = 0;
    const spent: SpentSince = () => (reads++, new Promise((r) => setTimeout(() => r(300), 50)));
    const three = await ledgers(t, 3, spent);
    const k = key('k1', 1_000);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => three[i % 3]!.admit([k], 100)));
    t.equal(admitted(answers), 7, '300 spent + 7 × 100 held = 1000');
    t.equal(reads, 1, "the period's spend was read from the store by one instance");
    const refused = answers.find((a) => !a.admitted);
    t.strictSame(refused, { admitted: false, subject: k });
    await Promise.all(
      answers.flatMap((a, i) => (a.admitted && a.hold ? [three[i % 3]!.release(a.hold)] : [])),
    );
    t.ok((await three[1]!.admit([k], 700)).admitted, 'released holds make room');
  },
);

t.test("a team's budget is shared by its keys on every instance; spend counts once", async (t) => {
  const [a, b, c] = await ledgers(t, 3, () => Promise.resolve(0));
  const t1 = team('t1', 1_000);
  const first = await a!.admit([key('k1', 10_000), t1], 500);
  t.ok(first.admitted);
  t.ok((await b!.admit([key('k2', 10_000), t1], 500)).admitted, '1000 held');
  const third = await c!.admit([key('k3', 10_000), t1], 400);
  t.strictSame(third, { admitted: false, subject: t1 }, "another key elsewhere: the team's budget is held");
  if (first.admitted && first.hold) await a!.release(first.hold);
  await a!.recorded({ key_id: 'k1', team_id: 't1', cost_micros: 150, created_at: now() }, true);
  t.ok((await c!.admit([key('k3', 10_000), t1], 400)).admitted, '150 spent + 500 held < 1000');
  t.notOk((await c!.admit([key('k3', 10_000), t1], 0)).admitted, '150 spent + 900 held: full');
});

t.test('a dead instance: its holds lapse with their lease; a live one keeps renewing', async (t) => {
  // Leases run out on Redis' clock, so this test passes in real time. A lease of 3 s is renewed every
  // second: the live instance's lapses only if its event loop stalls for 2 s.
  const timing = { ...TIMING, leaseMs: 3_000 };
  const [dead, live] = await ledgers(t, 2, () => Promise.resolve(0), { timing });
  const k = key('k1', 1_000);
  const since = Date.now();
  t.ok((await dead!.admit([k], 700)).admitted);
  dead!.stop(); // no more renewals: as if the process died
  t.ok((await live!.admit([k], 300)).admitted);
  t.notOk((await live!.admit([k], 0)).admitted, '1000 held');
  await until(t, async () => (await live!.admit([k], 0)).admitted, "the dead instance's hold lapsed");
  t.ok(Date.now() - since >= timing.leaseMs, 'not before its lease ran out');
  t.ok((await live!.admit([k], 700)).admitted, '300 + 700');
  t.notOk(
    (await live!.admit([k], 0)).admitted,
    "the live one's 300 is still held (renewed), and the 700: full",
  );
});

t.test(
  "a video task's hold outlives its call and is released once, by whichever instance sees it end",
  async (t) => {
    const [a, b] = await ledgers(t, 2, () => Promise.resolve(0));
    const subjects = [key('k1', 900), team('t1', 900)];
    const submit = await a!.admit(subjects, 900);
    t.ok(submit.admitted && submit.hold);
    if (!submit.admitted || !submit.hold) return;
    await a!.holdTask('task-1', submit.hold);
    await a!.release(submit.hold); // the submit call ended: its hold went to the task
    t.notOk((await b!.admit([team('t1', 900)], 0)).admitted, 'the task holds 900');
    await b!.taskEnded('task-1');
    await a!.taskEnded('task-1');
    t.ok((await b!.admit([team('t1', 900)], 600)).admitted, 'released');
    t.ok((await b!.admit([team('t1', 900)], 300)).admitted, '600 + 300');
    t.notOk((await b!.admit([team('t1', 900)], 0)).admitted, 'full: the task was released once, not twice');
    t.ok((await a!.admit([key('k1', 900)], 0)).admitted, "and the key's hold went too");
  },
);

t.test('spend changes come from the shared count: before and after, with the budget', async (t) => {
  const [a, b] = await ledgers(t, 2, () => Promise.resolve(200));
  const changes: SpendChange[] = [];
  a!.onSpend((c) => changes.push(c));
  b!.onSpend((c) => changes.push(c));
  await a!.admit([key('k1', 1_000, 'month'), team('t1', 5_000)], 0);
  await b!.recorded({ key_id: 'k1', team_id: 't1', cost_micros: 300, created_at: now() }); // the biller: no hint
  t.equal(changes.length, 2, 'one record, two subjects');
  await a!.recorded({ key_id: 'k1', team_id: 't1', cost_micros: 100, created_at: now() }, false);
  t.equal(changes.length, 4, 'a call without a budget still counts where one was seen');
  const d = new Date();
  t.strictSame(changes.slice(0, 2), [
    {
      subject: { kind: 'key', id: 'k1' },
      budget: { amount_micros: 1_000, period: 'month' },
      periodStart: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
      before: 200,
      after: 500,
    },
    {
      subject: { kind: 'team', id: 't1' },
      budget: { amount_micros: 5_000, period: 'total' },
      periodStart: 0,
      before: 200,
      after: 500,
    },
  ]);
  t.equal(changes[3]!.after, 600);
});

/** A usage store's spend: the records written, summed. */
function store(): { spentSince: SpentSince; write(cost: number): void } {
  const costs: number[] = [];
  return {
    spentSince: () => Promise.resolve(costs.reduce((a, b) => a + b, 0)),
    write: (cost) => void costs.push(cost),
  };
}

t.test(
  'Redis down: answered from local counts at once; back and empty, the spend is read again',
  async (t) => {
    const redis: PrivateRedis = await privateRedis(t);
    const usage = store();
    const [a, b] = await ledgers(t, 2, usage.spentSince, { url: redis.url });
    const k = key('k1', 1_000);
    t.ok((await a!.admit([k], 0)).admitted);
    await redis.kill();
    await until(
      t,
      async () => {
        const answer = await a!.admit([k], 100);
        if (answer.admitted && answer.hold) a!.release(answer.hold);
        return answer.admitted;
      },
      'answered from local counts',
    );
    usage.write(900);
    await a!.recorded({ key_id: 'k1', cost_micros: 900, created_at: now() }, true);
    t.ok((await a!.admit([k], 100)).admitted, 'locally: 900 spent');
    t.notOk((await a!.admit([k], 0)).admitted, 'the local count has the record: 900 spent + 100 held');
    await redis.start();
    await until(
      t,
      async () => !(await b!.admit([k], 200)).admitted,
      "Redis lost its counts: the store's spend is read again",
    );
  },
);

t.test('a record Redis could not take is counted once it answers again', async (t) => {
  const redis: PrivateRedis = await privateRedis(t);
  const usage = store();
  const key_prefix = redisPrefix(t, redis.url);
  // The recording instance gives up on a command after 200 ms, well inside the pause below; the other
  // waits out the pause, so its admissions are answered by Redis, not by its local counts.
  const [a] = await ledgers(t, 1, usage.spentSince, { url: redis.url, key_prefix, commandTimeout: 200 });
  const [b] = await ledgers(t, 1, usage.spentSince, { url: redis.url, key_prefix });
  const k = key('k1', 950);
  t.ok((await a!.admit([k], 0)).admitted, "the period's spend is read: 0");
  const admin = await RedisLink.connect({ url: redis.url, key_prefix: '', command_timeout: 5_000 }, silent);
  t.teardown(() => admin.close());
  await admin.client.call('CLIENT', 'PAUSE', '1500', 'WRITE');
  usage.write(950);
  // Timed out, kept, and sent again until Redis takes it: settled once the retry has landed.
  await a!.recorded({ key_id: 'k1', cost_micros: 950, created_at: now() }, true);
  t.notOk((await b!.admit([k], 0)).admitted, 'the record reached Redis after the pause');
  t.ok((await b!.admit([key('k1', 951)], 0)).admitted, 'counted once: 950, not twice');
});
