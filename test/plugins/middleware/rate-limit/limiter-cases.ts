/**
 * One table of cases run against both limiters (memory and Redis), in real time on small windows: at
 * most N in any window with no doubled burst at a boundary, a Retry-After that is honoured, concurrency
 * slots freed at the end of a call (Redis: and lapsing when an instance dies), tokens counted from the
 * real usage reported at the end of each call.
 */
import type { Test } from 'tap';
import type {
  Admission,
  Decision,
  Limiter,
  LimitRule,
} from '../../../../plugins/middleware/rate-limit/limiter';

export const WINDOW_MS = 2_000;
export const LEASE_MS = 600;

/** A limiter on shared counts; `dies` stops one as a crashed instance would (Redis only). */
export interface Backend {
  make(): Promise<Limiter>;
  dies?(limiter: Limiter): Promise<void>;
}

export interface LimiterCase {
  readonly name: string;
  /** Only meaningful where counts outlive a process. */
  readonly redisOnly?: boolean;
  run(t: Test, backend: Backend): Promise<void>;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const rpm = (limit: number, subject = 'key:a'): LimitRule => ({ subject, kind: 'requests', limit });
const tpm = (limit: number, subject = 'key:a'): LimitRule => ({ subject, kind: 'tokens', limit });
const slots = (limit: number): LimitRule => ({ subject: 'key:a', kind: 'concurrent', limit });

function admitted(t: Test, d: Decision, what: string): Admission {
  t.ok(d.admitted, what);
  if (!d.admitted) throw new Error(`${what}: refused`);
  return d.admission;
}

function refused(t: Test, d: Decision, what: string): number {
  t.notOk(d.admitted, what);
  return d.admitted ? 0 : d.retryAfterMs;
}

async function admitMany(t: Test, limiter: Limiter, rules: LimitRule[], n: number): Promise<void> {
  for (let i = 0; i < n; i++) admitted(t, await limiter.admit(rules), `request ${i + 1} admitted`);
}

export const LIMITER_CASES: readonly LimiterCase[] = [
  {
    name: 'standings for the rate-limit headers: the binding limit, counted down exactly',
    async run(t, backend) {
      const limiter = await backend.make();
      const rules = [rpm(4, 'key:a'), rpm(10, 'model:m'), tpm(100)];
      const remaining: number[] = [];
      for (let i = 0; i < 4; i++) {
        const d = await limiter.admit(rules);
        const admission = admitted(t, d, `request ${i + 1}`);
        remaining.push(d.quota.requests?.remaining ?? -1);
        t.strictSame(d.quota.requests && [d.quota.requests.limit, d.quota.requests.resetMs], [4, WINDOW_MS]);
        await limiter.settle(admission, 30);
      }
      t.strictSame(remaining, [3, 2, 1, 0], "the key's limit binds: 3, 2, 1, 0 remaining");
      const d = await limiter.admit(rules);
      refused(t, d, 'the fifth is refused');
      t.equal(d.quota.requests?.remaining, 0, 'and its standing says 0 remaining');
      t.ok((d.quota.requests?.resetMs ?? 0) > WINDOW_MS - 1_000, 'until the newest request leaves');
      t.equal(d.quota.tokens?.limit, 100);
      t.equal(d.quota.tokens?.remaining, 0, '120 tokens counted against 100: none remain');
      const reset = d.quota.tokens?.resetMs ?? 0;
      t.ok(reset > 0 && reset <= WINDOW_MS, `tokens reset in ${reset} ms`);
    },
  },
  {
    name: 'no standing where no limit of that kind applies',
    async run(t, backend) {
      const limiter = await backend.make();
      const d = await limiter.admit([slots(2)]);
      admitted(t, d, 'admitted');
      t.strictSame(d.quota, {}, 'a concurrency limit alone: no request or token standing');
      const tokens = await limiter.admit([tpm(50, 'key:b')]);
      t.equal(tokens.quota.requests, undefined, 'no request limit: no request standing');
      t.strictSame(tokens.quota.tokens, { limit: 50, remaining: 50, resetMs: 0 }, 'an empty token window');
    },
  },
  {
    name: 'no doubled limit at a window boundary: at most N in any window',
    async run(t, backend) {
      const limiter = await backend.make();
      const start = Date.now();
      await admitMany(t, limiter, [rpm(5)], 1);
      await sleep(1_000);
      await admitMany(t, limiter, [rpm(5)], 4); // 5 within the window, the last 4 near its "end"
      refused(t, await limiter.admit([rpm(5)]), 'the 6th is refused');
      await sleep(start + WINDOW_MS + 300 - Date.now());
      // A fixed window starting at `start` would admit 5 more here, 9 within 1.3 s.
      admitted(t, await limiter.admit([rpm(5)]), 'the first one left the window: one place');
      refused(t, await limiter.admit([rpm(5)]), 'and only one');
    },
  },
  {
    name: 'Retry-After, in whole seconds, is honoured',
    async run(t, backend) {
      const limiter = await backend.make();
      await admitMany(t, limiter, [rpm(3)], 3);
      const waitMs = refused(t, await limiter.admit([rpm(3)]), 'the 4th is refused');
      t.ok(waitMs > 0 && waitMs <= WINDOW_MS, `waits ${waitMs} ms, within the window`);
      await sleep(Math.ceil(waitMs / 1_000) * 1_000);
      admitted(t, await limiter.admit([rpm(3)]), 'admitted after Retry-After seconds');
    },
  },
  {
    name: 'a refused request counts against none of its limits',
    async run(t, backend) {
      const limiter = await backend.make();
      const both = [rpm(3, 'key:a'), rpm(1, 'model:m')];
      admitted(t, await limiter.admit(both), 'first admitted');
      for (let i = 0; i < 3; i++) refused(t, await limiter.admit(both), 'the model cap refuses');
      await admitMany(t, limiter, [rpm(3, 'key:a')], 2); // the key's 3: the refused ones did not count
      refused(t, await limiter.admit([rpm(3, 'key:a')]), "then the key's own limit");
    },
  },
  {
    name: 'concurrency: a slot frees when its call ends',
    async run(t, backend) {
      const limiter = await backend.make();
      const a = admitted(t, await limiter.admit([slots(2)]), 'a');
      admitted(t, await limiter.admit([slots(2)]), 'b');
      t.equal(refused(t, await limiter.admit([slots(2)]), 'c is refused'), 1_000, 'Retry-After 1 s');
      await limiter.settle(a, 0);
      admitted(t, await limiter.admit([slots(2)]), 'd takes the slot a freed');
      refused(t, await limiter.admit([slots(2)]), 'and no more');
    },
  },
  {
    name: 'tokens: counted from the real usage at the end of each call, checked before the next',
    async run(t, backend) {
      const limiter = await backend.make();
      await limiter.settle(admitted(t, await limiter.admit([tpm(100)]), 'a'), 70);
      const first = Date.now();
      const b = admitted(t, await limiter.admit([tpm(100)]), 'b: 70 < 100');
      await sleep(500);
      await limiter.settle(b, 50);
      const waitMs = refused(t, await limiter.admit([tpm(100)]), 'c: 120 ≥ 100');
      t.ok(waitMs <= first + WINDOW_MS - Date.now() + 50, `until a's tokens leave (${waitMs} ms)`);
      await sleep(Math.ceil(waitMs / 1_000) * 1_000);
      admitted(t, await limiter.admit([tpm(100)]), 'admitted once 50 < 100');
    },
  },
  {
    name: "a dead instance's concurrency leases lapse",
    redisOnly: true,
    async run(t, backend) {
      const dying = await backend.make();
      await admitMany(t, dying, [slots(2)], 2);
      await backend.dies!(dying);
      const other = await backend.make();
      refused(t, await other.admit([slots(2)]), 'its slots are taken while the leases run');
      await sleep(LEASE_MS + 300);
      admitted(t, await other.admit([slots(2)]), 'free once they lapse');
    },
  },
  {
    name: 'a long call keeps its lease (renewed)',
    redisOnly: true,
    async run(t, backend) {
      const limiter = await backend.make();
      const a = admitted(t, await limiter.admit([slots(1)]), 'a');
      await sleep(LEASE_MS * 2.5);
      refused(t, await (await backend.make()).admit([slots(1)]), 'still held after 2.5 leases');
      await limiter.settle(a, 0);
      admitted(t, await limiter.admit([slots(1)]), 'freed at its end');
    },
  },
];
