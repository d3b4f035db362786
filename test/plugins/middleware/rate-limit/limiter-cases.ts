/**
 * One table of cases run against both limiters (memory and Redis): at most N in any window with no
 * doubled burst at a boundary, a Retry-After that is honoured, concurrency slots freed at the end of a
 * call (Redis: and lapsing when an instance dies, and renewed while a call runs), tokens counted from the
 * real usage reported at the end of each call.
 *
 * Time is an input: each backend gives the cases a clock. The memory limiter reads a manual clock that
 * only moves when a case advances it, so no case sleeps. The Redis limiter counts on Redis' own clock
 * (its scripts call TIME), which cannot be moved: there, advancing is real time passing, and the windows
 * and leases are seconds long, so that an event loop stalled for a second or two cannot move a request
 * out of the window (or let a lease lapse) that a case needs it in. Cases that need no time to pass
 * count in a window of a minute.
 */
import type { Test } from 'tap';
import type {
  Admission,
  Decision,
  Limiter,
  LimitRule,
} from '../../../../plugins/middleware/rate-limit/limiter';
import { until } from '../../../helpers/wait';

/** The window of the cases that wait for it to pass: long against a stalled event loop, short to wait out. */
export const WINDOW_MS = 4_000;
/** The window of the cases in which no time passes: nothing leaves it while they run. */
export const LONG_WINDOW_MS = 60_000;
/** Concurrency leases (Redis): renewed every second, so a live one lapses only after a 2 s stall. */
export const LEASE_MS = 3_000;

/** Time as a case sees it. */
export interface CaseClock {
  /** The limiter's clock, in ms (for Redis: this machine's clock, which Redis' TIME reads too). */
  readonly now: () => number;
  /**
   * Lets `ms` pass. A manual clock moves at once; in real time this waits: the test is then about time
   * passing (a window emptying, a Retry-After, a call outliving its lease), so the wait is the subject.
   */
  readonly advance: (ms: number) => Promise<void>;
}

/** A limiter on shared counts; `dies` stops one as a crashed instance would (Redis only). */
export interface Backend {
  readonly clock: CaseClock;
  /** Another instance: a limiter counting in `windowMs` on the backend's shared counts. */
  readonly make: (windowMs: number) => Promise<Limiter>;
  readonly dies?: (limiter: Limiter) => Promise<void>;
}

export interface LimiterCase {
  readonly name: string;
  /** Only meaningful where counts outlive a process. */
  readonly redisOnly?: boolean;
  run(t: Test, backend: Backend): Promise<void>;
}

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

/** Whole seconds, as the Retry-After header gives `ms`. */
const retryAfter = (ms: number): number => Math.ceil(ms / 1_000) * 1_000;

export const LIMITER_CASES: readonly LimiterCase[] = [
  {
    name: 'standings for the rate-limit headers: the binding limit, counted down exactly',
    async run(t, { make, clock }) {
      const limiter = await make(LONG_WINDOW_MS);
      const rules = [rpm(4, 'key:a'), rpm(10, 'model:m'), tpm(100)];
      const remaining: number[] = [];
      let newest = 0;
      for (let i = 0; i < 4; i++) {
        newest = clock.now();
        const d = await limiter.admit(rules);
        const admission = admitted(t, d, `request ${i + 1}`);
        remaining.push(d.quota.requests?.remaining ?? -1);
        t.strictSame(d.quota.requests && [d.quota.requests.limit, d.quota.requests.resetMs], [
          4,
          LONG_WINDOW_MS,
        ]);
        await limiter.settle(admission, 30);
      }
      t.strictSame(remaining, [3, 2, 1, 0], "the key's limit binds: 3, 2, 1, 0 remaining");
      const d = await limiter.admit(rules);
      const since = clock.now() - newest;
      refused(t, d, 'the fifth is refused');
      t.equal(d.quota.requests?.remaining, 0, 'and its standing says 0 remaining');
      const resetMs = d.quota.requests?.resetMs ?? 0;
      t.ok(resetMs >= LONG_WINDOW_MS - since, `until the newest request leaves (${resetMs} ms)`);
      t.equal(d.quota.tokens?.limit, 100);
      t.equal(d.quota.tokens?.remaining, 0, '120 tokens counted against 100: none remain');
      const reset = d.quota.tokens?.resetMs ?? 0;
      t.ok(reset > 0 && reset <= LONG_WINDOW_MS, `tokens reset in ${reset} ms`);
    },
  },
  {
    name: 'no standing where no limit of that kind applies',
    async run(t, { make }) {
      const limiter = await make(LONG_WINDOW_MS);
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
    async run(t, { make, clock }) {
      const limiter = await make(WINDOW_MS);
      const start = clock.now();
      await admitMany(t, limiter, [rpm(5)], 1);
      await clock.advance(WINDOW_MS / 2); // time passing: the others come in the window's second half
      await admitMany(t, limiter, [rpm(5)], 4); // 5 within the window, the last 4 near its "end"
      refused(t, await limiter.admit([rpm(5)]), 'the 6th is refused');
      await clock.advance(start + WINDOW_MS - clock.now()); // time passing: to the window's end
      // The first request leaves the window on the limiter's clock: for Redis a moment after ours read
      // its time, so the first place is awaited (a refused request counts nowhere).
      await until(
        () => limiter.admit([rpm(5)]),
        (d) => d.admitted,
        { what: 'a place once the first request left the window' },
      );
      t.ok(clock.now() - start >= WINDOW_MS, 'the first one left the window: one place, not before');
      // A fixed window starting at `start` would admit 5 more here, 9 within half a window.
      refused(t, await limiter.admit([rpm(5)]), 'and only one');
    },
  },
  {
    name: 'Retry-After, in whole seconds, is honoured',
    async run(t, { make, clock }) {
      const limiter = await make(WINDOW_MS);
      await admitMany(t, limiter, [rpm(3)], 3);
      const waitMs = refused(t, await limiter.admit([rpm(3)]), 'the 4th is refused');
      t.ok(waitMs > 0 && waitMs <= WINDOW_MS, `waits ${waitMs} ms, within the window`);
      await clock.advance(retryAfter(waitMs)); // the client waits what Retry-After says
      admitted(t, await limiter.admit([rpm(3)]), 'admitted after Retry-After seconds');
    },
  },
  {
    name: 'a refused request counts against none of its limits',
    async run(t, { make }) {
      const limiter = await make(LONG_WINDOW_MS);
      const both = [rpm(3, 'key:a'), rpm(1, 'model:m')];
      admitted(t, await limiter.admit(both), 'first admitted');
      for (let i = 0; i < 3; i++) refused(t, await limiter.admit(both), 'the model cap refuses');
      await admitMany(t, limiter, [rpm(3, 'key:a')], 2); // the key's 3: the refused ones did not count
      refused(t, await limiter.admit([rpm(3, 'key:a')]), "then the key's own limit");
    },
  },
  {
    name: 'concurrency: a slot frees when its call ends',
    async run(t, { make }) {
      const limiter = await make(LONG_WINDOW_MS);
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
    async run(t, { make, clock }) {
      const limiter = await make(WINDOW_MS);
      await limiter.settle(admitted(t, await limiter.admit([tpm(100)]), 'a'), 70);
      const first = clock.now(); // a's tokens were counted no later than this
      const b = admitted(t, await limiter.admit([tpm(100)]), 'b: 70 < 100');
      await clock.advance(500); // time passing: b's tokens are counted later than a's
      await limiter.settle(b, 50);
      const asked = clock.now();
      const waitMs = refused(t, await limiter.admit([tpm(100)]), 'c: 120 ≥ 100');
      t.ok(waitMs <= first + WINDOW_MS - asked, `until a's tokens leave (${waitMs} ms)`);
      await clock.advance(retryAfter(waitMs)); // the client waits what Retry-After says
      admitted(t, await limiter.admit([tpm(100)]), 'admitted once 50 < 100');
    },
  },
  {
    name: "a dead instance's concurrency leases lapse",
    redisOnly: true,
    async run(t, backend) {
      const { make, clock } = backend;
      const dying = await make(LONG_WINDOW_MS);
      const since = clock.now();
      await admitMany(t, dying, [slots(2)], 2);
      await backend.dies!(dying);
      const other = await make(LONG_WINDOW_MS);
      refused(t, await other.admit([slots(2)]), 'its slots are taken while the leases run');
      await until(
        () => other.admit([slots(2)]),
        (d) => d.admitted,
        { what: "a slot once the dead instance's leases lapsed" },
      );
      t.ok(clock.now() - since >= LEASE_MS, 'free once they lapse, not before');
    },
  },
  {
    name: 'a long call keeps its lease (renewed)',
    redisOnly: true,
    async run(t, { make, clock }) {
      const limiter = await make(LONG_WINDOW_MS);
      const a = admitted(t, await limiter.admit([slots(1)]), 'a');
      await clock.advance(LEASE_MS * 2.5); // time passing: the call outlives its lease twice over
      refused(t, await (await make(LONG_WINDOW_MS)).admit([slots(1)]), 'still held after 2.5 leases');
      await limiter.settle(a, 0);
      admitted(t, await limiter.admit([slots(1)]), 'freed at its end');
    },
  },
];
