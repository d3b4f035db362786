import t from 'tap';
import pino from 'pino';
import { Lifecycle, type Part } from '../../../core/boot/lifecycle';

/** A part that records its start and stop in `log`; `fail` makes that step throw. */
function part(log: string[], name: string, fail: 'start' | 'stop' | '' = '', needs?: string[]): Part {
  return {
    name,
    ...(needs ? { needs } : {}),
    start: async () => {
      await Promise.resolve();
      if (fail === 'start') throw new Error(`${name} would not start`);
      log.push(`start ${name}`);
    },
    stop: () => {
      if (fail === 'stop') throw new Error(`${name} would not stop`);
      log.push(`stop ${name}`);
    },
  };
}

t.test('parts with no needs start in the order added and stop in reverse', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  for (const name of ['stores', 'redis', 'poller', 'listener']) lifecycle.add(part(log, name));
  await lifecycle.start();
  await lifecycle.stop(1_000);
  t.strictSame(log, [
    'start stores',
    'start redis',
    'start poller',
    'start listener',
    'stop listener',
    'stop poller',
    'stop redis',
    'stop stores',
  ]);
  await lifecycle.stop(1_000);
  t.equal(log.length, 8, 'a second stop stops nothing twice');
});

t.test('a part that fails to start stops those started, and the start fails', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add(part(log, 'stores'));
  lifecycle.add(part(log, 'redis'));
  lifecycle.add(part(log, 'listener', 'start'));
  lifecycle.add(part(log, 'readiness'));
  await t.rejects(lifecycle.start(), /listener would not start/);
  t.strictSame(log, ['start stores', 'start redis', 'stop redis', 'stop stores']);
});

t.test('a part built running (no start) is stopped even when nothing was started', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add({ name: 'stores', stop: () => void log.push('stop stores') });
  lifecycle.add(part(log, 'poller'));
  await lifecycle.stop(0);
  t.strictSame(log, ['stop stores'], 'the poller never started, so it is not stopped');
});

t.test('a part that fails to stop is logged and the rest still stop, within one deadline', async (t) => {
  const log: string[] = [];
  const lines: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) });
  const lifecycle = new Lifecycle(logger);
  const deadlines: number[] = [];
  lifecycle.add({ name: 'stores', stop: (deadline) => void deadlines.push(deadline) });
  lifecycle.add(part(log, 'poller', 'stop'));
  lifecycle.add({ name: 'listener', stop: (deadline) => void deadlines.push(deadline) });
  await lifecycle.start();
  const before = Date.now();
  await lifecycle.stop(5_000);
  t.equal(deadlines.length, 2, 'the parts either side of the failing one stopped');
  t.equal(deadlines[0], deadlines[1], 'every part is given the same deadline');
  t.ok(deadlines[0]! >= before + 5_000 && deadlines[0]! <= Date.now() + 5_000);
  t.match(lines.join(''), /stopping poller failed/);
});

/** A part that needs others, recording its start and stop in `log`. */
const needing = (log: string[], name: string, ...needs: string[]): Part => part(log, name, '', needs);

t.test('parts start after what they need, whatever the order they were added in', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add(needing(log, 'readiness', 'listener'));
  lifecycle.add(needing(log, 'listener', 'poller', 'stores', 'redis'));
  lifecycle.add(needing(log, 'poller', 'stores', 'redis'));
  lifecycle.add(needing(log, 'redis'));
  lifecycle.add(needing(log, 'stores'));
  await lifecycle.start();
  t.strictSame(log, ['start redis', 'start stores', 'start poller', 'start listener', 'start readiness']);
  log.length = 0;
  await lifecycle.stop(1_000);
  t.strictSame(
    log,
    ['stop readiness', 'stop listener', 'stop poller', 'stop stores', 'stop redis'],
    'each part stops before what it needs, in the reverse of the start',
  );
});

t.test('parts the needs leave unordered keep the order they were added in', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add(needing(log, 'key events', 'redis'));
  lifecycle.add(needing(log, 'team events', 'redis'));
  lifecycle.add(needing(log, 'tracing'));
  lifecycle.add(needing(log, 'redis'));
  await lifecycle.start();
  t.strictSame(log, ['start tracing', 'start redis', 'start key events', 'start team events']);
});

t.test('a part that needs a part built running starts after it and stops before it', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add(needing(log, 'poller', 'stores'));
  lifecycle.add({ name: 'stores', stop: () => void log.push('stop stores') });
  await lifecycle.start();
  await lifecycle.stop(1_000);
  t.strictSame(log, ['start poller', 'stop poller', 'stop stores']);
});

t.test('a need that names no part fails the start, naming both, and stops what was running', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add({ name: 'stores', stop: () => void log.push('stop stores') });
  lifecycle.add(needing(log, 'poller', 'stores', 'reddis'));
  await t.rejects(lifecycle.start(), { message: 'lifecycle: "poller" needs "reddis", which is no part' });
  t.strictSame(log, ['stop stores'], 'nothing started; the part built running was stopped');
});

t.test('two parts of one name fail the start', async (t) => {
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add({ name: 'redis' });
  lifecycle.add({ name: 'redis' });
  await t.rejects(lifecycle.start(), /more than one part is named "redis"/);
});

t.test('parts that need each other fail the start, naming the cycle', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add(needing(log, 'stores'));
  lifecycle.add(needing(log, 'listener', 'poller'));
  lifecycle.add(needing(log, 'poller', 'watcher'));
  lifecycle.add(needing(log, 'watcher', 'stores', 'listener'));
  lifecycle.add(needing(log, 'readiness', 'listener'));
  await t.rejects(lifecycle.start(), {
    message:
      'lifecycle: parts need each other in a cycle: "listener" needs "poller" needs "watcher" needs "listener"',
  });
  t.strictSame(log, [], 'the order is checked before any part starts');
});

t.test('a part that needs itself is a cycle', async (t) => {
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add({ name: 'poller', needs: ['poller'], start: () => undefined });
  await t.rejects(lifecycle.start(), /a cycle: "poller" needs "poller"/);
});

t.test('a failed start stops the parts started, each before what it needs', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add(part(log, 'listener', 'start', ['poller']));
  lifecycle.add(needing(log, 'poller', 'redis'));
  lifecycle.add(needing(log, 'readiness', 'listener'));
  lifecycle.add(needing(log, 'redis'));
  await t.rejects(lifecycle.start(), /listener would not start/);
  t.strictSame(log, ['start redis', 'start poller', 'stop poller', 'stop redis']);
});

t.test('a lifecycle whose needs are wrong still stops every running part', async (t) => {
  const log: string[] = [];
  const lifecycle = new Lifecycle(pino({ level: 'silent' }));
  lifecycle.add({ name: 'stores', stop: () => void log.push('stop stores') });
  lifecycle.add({ name: 'a', needs: ['b', 'stores', 'gone'], stop: () => void log.push('stop a') });
  lifecycle.add({ name: 'b', needs: ['a'], stop: () => void log.push('stop b') });
  await lifecycle.stop(0);
  t.strictSame(log, ['stop b', 'stop a', 'stop stores']);
});
