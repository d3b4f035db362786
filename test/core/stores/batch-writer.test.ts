/**
 * The batch writer: retries with capped backoff, a bound at the door, a failure streak logged once, close.
 * Backoff is time passing, so the tests move a fake clock (the writer reads the process's timers and
 * writes to a function here, no I/O): a stalled event loop can neither stretch a gap nor let a retry run
 * before the test looks.
 */
import t from 'tap';
import type { Clock } from '@sinonjs/fake-timers';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { BatchWriter, type BatchOptions } from '../../../core/stores/batch-writer';
import { fakeClock } from '../../helpers/clock';
import { capturingLogger } from '../../helpers/stores';

const options: BatchOptions = {
  flushEveryMs: 5,
  maxBatch: 100,
  maxQueued: 10,
  retryFirstMs: 10,
  retryMaxMs: 40,
};

/** A write that fails its first `failures` calls, keeping what it was given and when. */
function flakyWrite(failures: number) {
  const written: number[] = [];
  const attempts: number[] = [];
  const write = (batch: number[]): Promise<void> => {
    attempts.push(Date.now());
    if (attempts.length <= failures) return Promise.reject(new Error(`disk says no (${attempts.length})`));
    written.push(...batch);
    return Promise.resolve();
  };
  return { write, written, attempts };
}

/**
 * Moves the fake clock a millisecond at a time (running the timers due and the promises they settle)
 * until `holds`, so the test looks at the writer at the moment it changed; gives up after `limitMs` of
 * fake time, naming `what`.
 */
async function advanceUntil(
  clock: Clock,
  holds: () => boolean,
  what: string,
  limitMs = 10_000,
): Promise<void> {
  for (let moved = 0; !holds(); moved++) {
    if (moved >= limitMs) throw new Error(`${what}: not met in ${limitMs} ms of the fake clock`);
    await clock.tickAsync(1);
  }
}

/** `writer.close(waitMs)`, its retries waited out on the fake clock. */
async function closing(clock: Clock, writer: BatchWriter<number>, waitMs: number): Promise<number> {
  let left: number | undefined;
  const closed = writer.close(waitMs).then((n) => (left = n));
  await advanceUntil(clock, () => left !== undefined, 'close');
  return closed;
}

t.test('a write that fails twice, then succeeds, loses nothing and writes nothing twice', async (t) => {
  const clock = fakeClock(t);
  const { write, written, attempts } = flakyWrite(2);
  const { logger, lines } = capturingLogger();
  const writer = new BatchWriter(write, options, logger, 'usage records');
  for (const n of [1, 2, 3]) writer.add(n);
  await advanceUntil(clock, () => attempts.length === 2, 'two failed attempts');
  t.match(writer.stats(), { queued: 3, failing: true, failedWrites: 2 }, 'kept, and counted');
  writer.add(4); // added during the streak: waits for the retry, behind the failed batch
  await advanceUntil(clock, () => writer.stats().queued === 0, 'the retry');
  t.strictSame(written, [1, 2, 3, 4], 'every item once, in order');
  t.equal(attempts.length, 3, 'no attempt beyond the one that worked');
  t.equal(attempts[2]! - attempts[1]!, 2 * options.retryFirstMs, 'the second retry waited twice as long');
  t.match(writer.stats(), { queued: 0, failedWrites: 2, failing: false, retryInMs: 0 });
  t.strictSame(
    lines.map((l) => l.msg),
    [
      'writing usage records failed; retrying with backoff, nothing is dropped',
      'writing usage records works again after 2 failed attempts',
    ],
    'the streak is logged once when it starts and once when it ends, not per retry',
  );
  t.match(lines[0], { level: 50, err: { message: 'disk says no (1)' }, queued: 3 });
});

t.test('retries back off exponentially up to the cap', async (t) => {
  const clock = fakeClock(t);
  const { write, attempts } = flakyWrite(6);
  const writer = new BatchWriter(write, options);
  writer.add(1);
  await advanceUntil(clock, () => attempts.length === 7, 'seven attempts');
  const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!);
  t.strictSame(gaps, [10, 20, 40, 40, 40, 40], '10, 20, 40, then capped at 40');
});

t.test('a pending retry does not keep the process alive', async (t) => {
  const script = `
    const { BatchWriter } = require(${JSON.stringify(require.resolve('../../../core/stores/batch-writer'))});
    const options = { flushEveryMs: 5, maxBatch: 100, maxQueued: 10, retryFirstMs: 60000, retryMaxMs: 60000 };
    new BatchWriter(() => Promise.reject(new Error('down')), options).add(1);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timeout);
  t.equal(code, 0, 'the process ended by itself, its retry a minute away');
});

t.test(
  'the queue is bounded at the door: past maxQueued nothing new is accepted, nothing is dropped',
  async (t) => {
    const clock = fakeClock(t);
    const { write, written } = flakyWrite(Infinity);
    const writer = new BatchWriter(write, options);
    for (let n = 0; n < options.maxQueued - 1; n++) writer.add(n);
    t.equal(writer.accepting, true, 'one below the bound');
    writer.add(9);
    t.equal(writer.accepting, false, 'at the bound');
    writer.add(10); // the record of a call already under way
    writer.add(11);
    t.equal(writer.stats().queued, 12, 'still queued past the bound');
    await advanceUntil(clock, () => writer.stats().failedWrites >= 2, 'failing writes');
    t.equal(writer.accepting, false, 'failing writes keep it closed');
    t.strictSame(written, []);
    t.ok(writer.stats().retryInMs <= options.retryMaxMs, 'the next attempt is announced');
  },
);

t.test('accepting again once the backlog is written', async (t) => {
  const clock = fakeClock(t);
  let fail = true;
  const written: number[] = [];
  const write = (batch: number[]): Promise<void> => {
    if (fail) return Promise.reject(new Error('down'));
    written.push(...batch);
    return Promise.resolve();
  };
  const writer = new BatchWriter(write, options);
  for (let n = 0; n < 12; n++) writer.add(n);
  await advanceUntil(clock, () => writer.stats().failing, 'failing');
  t.equal(writer.accepting, false);
  fail = false;
  await advanceUntil(clock, () => writer.accepting, 'accepting again');
  t.equal(written.length, 12, 'all written');
});

t.test('close retries within its time and logs what it could not write', (t) => {
  t.test('writes that recover within the time lose nothing', async (t) => {
    const clock = fakeClock(t);
    const { write, written } = flakyWrite(3);
    const writer = new BatchWriter(write, options);
    for (const n of [1, 2]) writer.add(n);
    t.equal(await closing(clock, writer, 1_000), 0, 'nothing left');
    t.strictSame(written, [1, 2]);
  });
  t.test('writes that keep failing: close gives up at its time and logs the items', async (t) => {
    const clock = fakeClock(t);
    const { write } = flakyWrite(Infinity);
    const { logger, lines } = capturingLogger();
    const writer = new BatchWriter(write, options, logger, 'usage records');
    for (const n of [1, 2]) writer.add(n);
    const started = Date.now();
    t.equal(await closing(clock, writer, 150), 2, 'two could not be written');
    const took = Date.now() - started;
    t.ok(took >= 100 && took < 1_000, `it kept trying for its time (${took} ms)`);
    t.match(lines.at(-1), {
      level: 50,
      msg: '2 usage records could not be written before closing; they are listed here',
      unwritten: [1, 2],
      count: 2,
    });
  });
  t.end();
});
