import t from 'tap';
import 'reflect-metadata';
import { createHook } from 'node:async_hooks';
import type { GatewayConfig, GatewayContext } from '../../../core/kit/plugin';
import type { EventFilter, StreamControl } from '../../../core/kit/stage';
import { SseRelayMiddleware } from '../../../plugins/middleware/sse-relay';
import { eventually } from '../../helpers/wait';

const PING_EVERY_MS = 20;
const IDLE_MS = 60;

/** A stream as the stage sees it, its timing set by the test; it records what the stage did to it. */
class WatchedStream implements StreamControl {
  silent = 0;
  quiet = 0;
  pings = 0;
  timedOutAfter: number | undefined;

  silentMs(): number {
    return this.silent;
  }
  quietMs(): number {
    return this.quiet;
  }
  ping(): void {
    this.pings++;
  }
  timeOut(afterMs: number): void {
    this.timedOutAfter = afterMs;
  }
  end(): void {}
  usage(): never {
    throw new Error('not read by sse-relay');
  }
}

const relay = () =>
  new SseRelayMiddleware({ ping_every: PING_EVERY_MS }, {
    server: { timeouts: { stream_idle: IDLE_MS } },
  } as GatewayConfig);

/** The timers Node creates, and destroys, while `run` opens streams (async_hooks sees every Timeout). */
function timersMadeBy<T>(run: () => T): { result: T; made: number; gone: () => number } {
  const ids = new Set<number>();
  const destroyed = new Set<number>();
  let opening = true;
  const hook = createHook({
    init: (id, type) => void (opening && type === 'Timeout' && ids.add(id)),
    destroy: (id) => void (ids.has(id) && destroyed.add(id)),
  }).enable();
  const result = run();
  opening = false;
  t.teardown(() => hook.disable());
  return { result, made: ids.size, gone: () => destroyed.size };
}

t.test('every open stream is checked by one timer, which goes with the last stream', async (t) => {
  const stage = relay();
  const streams = Array.from({ length: 5 }, () => new WatchedStream());
  const ctx = {} as GatewayContext;
  const { result: filters, made, gone } = timersMadeBy(() => streams.map((s) => stage.events(ctx, s)));
  t.equal(made, 1, 'five streams, one timer');

  for (const s of streams) s.quiet = PING_EVERY_MS;
  await eventually(() => streams.every((s) => s.pings > 0), 5_000, 'a ping on every quiet stream');

  streams[0]!.silent = IDLE_MS;
  await eventually(() => streams[0]!.timedOutAfter !== undefined, 5_000, 'the silent stream timed out');
  t.equal(streams[0]!.timedOutAfter, IDLE_MS, 'timed out after stream_idle');
  t.equal(streams[1]!.timedOutAfter, undefined, 'the others still run');

  filters.forEach((f: EventFilter) => f.close?.({ changed: false }));
  const pingsAtClose = streams.map((s) => s.pings);
  await eventually(() => gone() === 1, 5_000, 'the timer cleared once no stream is open');
  t.same(
    streams.map((s) => s.pings),
    pingsAtClose,
    'a closed stream is never pinged',
  );
});

t.test('a stream opened after the timer went starts another', async (t) => {
  const stage = relay();
  const first = new WatchedStream();
  const opened = timersMadeBy(() => stage.events({} as GatewayContext, first));
  opened.result.close?.({ changed: false });
  await eventually(() => opened.gone() === 1, 5_000, 'the first timer cleared');

  const second = new WatchedStream();
  second.quiet = PING_EVERY_MS;
  const reopened = timersMadeBy(() => stage.events({} as GatewayContext, second));
  t.equal(reopened.made, 1, 'a new timer for the new stream');
  await eventually(() => second.pings > 0, 5_000, 'the new stream is pinged');
  reopened.result.close?.({ changed: false });
  t.equal(first.pings, 0, 'the closed stream never was');
});
