/**
 * A wall clock that stands still until the test moves it, for a real gateway whose subject is judged by
 * the date (a key's expiry, a failed-auth window): only `Date` is faked, for the whole process, until the
 * test ends. Timers and `performance` keep real time, so sockets, sweeps, pollers and caches go on as
 * they would (faking them too, as `fakeClock` does, would stop them). `tick(ms)` moves the date at once.
 */
import { install, type Clock } from '@sinonjs/fake-timers';
import type { Teardown } from './gateway';

/** Fakes this process's `Date` at `start` (now) until the test ends. */
export function frozenDate(t: Teardown, start = Date.now()): Clock {
  const clock = install({ now: start, toFake: ['Date'] });
  t.teardown(() => clock.uninstall());
  return clock;
}
