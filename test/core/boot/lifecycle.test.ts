import t from 'tap';
import pino from 'pino';
import { Lifecycle, type Part } from '../../../core/boot/lifecycle';

/** A part that records its start and stop in `log`; `fail` makes that step throw. */
function part(log: string[], name: string, fail: 'start' | 'stop' | '' = ''): Part {
  return {
    name,
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

t.test('parts start in the order added and stop in reverse', async (t) => {
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
