/**
 * Time as an input, for tests whose subject is time passing (TTLs, windows, leases, back-off): they move
 * a fake clock instead of sleeping through real time, so a stalled event loop cannot change what they
 * see. Three forms, all @sinonjs/fake-timers:
 * - `manualClock()` drives code that takes a clock (`() => number`) or timers as parameters, and leaves
 *   the process's own timers alone (sockets, Redis and tap keep real time);
 * - `fakeClock(t)` replaces Date, the timers and `performance` of the whole process until the test ends,
 *   for code that reads them directly. `setImmediate` and `process.nextTick` stay real, so I/O still runs.
 *   either moves with `tickAsync(ms)`, which runs the timers due in order and the promises they settle;
 * - `frozenDate(t)` replaces `Date` alone, for a real gateway whose subject is judged by the date (a
 *   key's expiry, a failed-auth window): its timers and `performance` keep real time, so sockets, sweeps,
 *   pollers and caches go on as they would. `tick(ms)` moves the date at once.
 */
import { createClock, install, type Clock } from '@sinonjs/fake-timers';
import type { Teardown } from './gateway';

/** A clock at `start` (epoch ms) that only moves when told; `read` is the reading to inject. */
export function manualClock(start = Date.UTC(2026, 0, 15, 12)): Clock & { readonly read: () => number } {
  const clock = createClock(start);
  return Object.assign(clock, { read: () => clock.now });
}

/** Fakes this process's Date, timers and `performance` until the test ends. */
export function fakeClock(t: Teardown, start = Date.UTC(2026, 0, 15, 12)): Clock {
  const clock = install({
    now: start,
    toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'],
    // A timer set before the install is still cleared for real: Node's fetch (undici) clears and sets its
    // socket timers as it reads, and one left uncleared would fire on a socket long after.
    shouldClearNativeTimers: true,
  });
  t.teardown(() => clock.uninstall());
  return clock;
}

/** Fakes this process's `Date` alone, standing at `start` (now) until moved, until the test ends. */
export function frozenDate(t: Teardown, start = Date.now()): Clock {
  const clock = install({ now: start, toFake: ['Date'] });
  t.teardown(() => clock.uninstall());
  return clock;
}
