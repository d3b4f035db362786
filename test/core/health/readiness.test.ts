/**
 * Readiness on its own: not ready while starting or draining, failing checks make it unready and
 * degraded ones do not, probes are cached and never run twice at once, and a check that throws or
 * hangs counts as failing with that as its reason.
 */
import t from 'tap';
import pino from 'pino';
import { Readiness, type CheckResult, type ReadinessCheck } from '../../../core/health/readiness';
import { capturingLogger } from '../../helpers/stores';

const silent = pino({ level: 'silent' });

/** A check whose answer the test sets, counting its probes. */
function settable(name: string, first: CheckResult = { state: 'ok' }) {
  const check = {
    name,
    result: first,
    probes: 0,
    probe(): CheckResult {
      check.probes++;
      return check.result;
    },
  };
  return check;
}

t.test('starting and draining are unready whatever the checks say; serving follows the checks', async (t) => {
  const store = settable('stores');
  const readiness = new Readiness([store], silent, { cacheMs: 0 });
  t.equal(await readiness.ready(), false, 'starting');
  t.equal(store.probes, 0, 'nothing probed before start-up completes');
  readiness.serving();
  t.equal(await readiness.ready(), true);
  store.result = { state: 'failing', reason: 'usage.jsonl: the last write failed (ENOSPC)' };
  t.equal(await readiness.ready(), false, 'a failing check');
  store.result = { state: 'degraded', reason: 'redis down, local fallback' };
  t.equal(await readiness.ready(), true, 'a degraded check leaves it ready');
  store.result = { state: 'ok' };
  readiness.drain();
  const probes = store.probes;
  t.equal(await readiness.ready(), false, 'draining: at once');
  t.equal(store.probes, probes, 'and without a probe');
  readiness.serving();
  t.equal(await readiness.ready(), false, 'draining is for good');
});

t.test('the view: each check with its state, reason and since when the state holds', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const store = settable('stores');
  const redis = settable('redis', { state: 'degraded', reason: 'not connected' });
  const readiness = new Readiness([store, redis], silent, { cacheMs: 0, now: () => now });
  readiness.serving();
  t.match(await readiness.view(), {
    status: 'ok',
    phase: 'serving',
    checked_at: '2026-01-01T00:00:00.000Z',
    checks: {
      stores: { state: 'ok', since: '2026-01-01T00:00:00.000Z' },
      redis: { state: 'degraded', reason: 'not connected', since: '2026-01-01T00:00:00.000Z' },
    },
  });
  now += 5_000;
  store.result = { state: 'failing', reason: 'keys.jsonl: the last write failed (EISDIR)' };
  const view = await readiness.view();
  t.match(view, {
    status: 'unavailable',
    checks: {
      stores: { state: 'failing', reason: /EISDIR/, since: '2026-01-01T00:00:05.000Z' },
      redis: { state: 'degraded', since: '2026-01-01T00:00:00.000Z' },
    },
  });
  now += 1_000;
  readiness.drain();
  t.match(await readiness.view(), {
    status: 'unavailable',
    phase: 'draining',
    since: '2026-01-01T00:00:06.000Z',
  });
});

t.test('probes are cached for cacheMs and shared by callers meanwhile', async (t) => {
  let now = 0;
  let release: () => void = () => undefined;
  let probes = 0;
  const slow: ReadinessCheck = {
    name: 'stores',
    probe: () => {
      probes++;
      return new Promise<CheckResult>((resolve) => (release = () => resolve({ state: 'ok' })));
    },
  };
  const readiness = new Readiness([slow], silent, { cacheMs: 1_000, now: () => now });
  readiness.serving();
  const asks = Array.from({ length: 50 }, () => readiness.ready());
  await new Promise((r) => setImmediate(r));
  release();
  t.strictSame(await Promise.all(asks), Array<boolean>(50).fill(true));
  t.equal(probes, 1, 'fifty asks at once: one probe');
  now = 999;
  await readiness.ready();
  t.equal(probes, 1, 'within cacheMs: none');
  now = 1_000;
  const again = readiness.ready();
  await new Promise((r) => setImmediate(r));
  release();
  await again;
  t.equal(probes, 2, 'after cacheMs: a new one');
});

t.test('a check that throws or does not answer in time is failing, and says so', async (t) => {
  const throws: ReadinessCheck = {
    name: 'stores',
    probe: () => {
      throw new Error('boom');
    },
  };
  const hangs: ReadinessCheck = { name: 'redis', probe: () => new Promise<CheckResult>(() => undefined) };
  // The probe's timer does not hold the process (a server does): this test's interval does.
  const hold = setInterval(() => undefined, 1_000);
  t.teardown(() => clearInterval(hold));
  const readiness = new Readiness([throws, hangs], silent, { cacheMs: 0, probeTimeoutMs: 50 });
  readiness.serving();
  t.equal(await readiness.ready(), false);
  t.match((await readiness.view()).checks, {
    stores: { state: 'failing', reason: 'boom' },
    redis: { state: 'failing', reason: 'no answer within 50 ms' },
  });
});

t.test('a check that starts or stops failing is logged once each time', async (t) => {
  const { logger, lines } = capturingLogger();
  const store = settable('stores');
  const readiness = new Readiness([store], logger, { cacheMs: 0 });
  readiness.serving();
  await readiness.ready();
  store.result = { state: 'failing', reason: 'usage.jsonl: the last write failed (ENOSPC)' };
  for (let i = 0; i < 5; i++) await readiness.ready();
  store.result = { state: 'ok' };
  for (let i = 0; i < 5; i++) await readiness.ready();
  t.match(lines, [
    { level: 50, check: 'stores', msg: 'not ready: stores: usage.jsonl: the last write failed (ENOSPC)' },
    { level: 40, check: 'stores', msg: 'ready again: stores recovered' },
  ]);
  t.equal(lines.length, 2);
});
