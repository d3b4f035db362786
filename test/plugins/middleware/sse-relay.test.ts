import t, { type Test } from 'tap';
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

/**
 * The timers Node creates, and destroys, while `run` opens streams (async_hooks sees every Timeout);
 * the hook is disabled as `test` ends.
 */
function timersMadeBy<T>(test: Test, run: () => T): { result: T; made: number; gone: () => number } {
  const ids = new Set<number>();
  const destroyed = new Set<number>();
  let opening = true;
  const hook = createHook({
    init: (id, type) => void (opening && type === 'Timeout' && ids.add(id)),
    destroy: (id) => void (ids.has(id) && destroyed.add(id)),
  }).enable();
  const result = run();
  opening = false;
  test.teardown(() => hook.disable());
  return { result, made: ids.size, gone: () => destroyed.size };
}

t.test('each stream is pinged when quiet, timed out when silent, and let go of when closed', async (t) => {
  const stage = relay();
  const streams = Array.from({ length: 3 }, () => new WatchedStream());
  const ctx = {} as GatewayContext;
  const { result: filters, made, gone } = timersMadeBy(t, () => streams.map((s) => stage.events(ctx, s)));
  t.equal(made, 3, 'a timer a stream (a shared one over a Set kept every stream alive)');

  for (const s of streams) s.quiet = PING_EVERY_MS;
  await eventually(() => streams.every((s) => s.pings > 0), 5_000, 'a ping on every quiet stream');

  streams[0]!.silent = IDLE_MS;
  await eventually(() => streams[0]!.timedOutAfter !== undefined, 5_000, 'the silent stream timed out');
  t.equal(streams[0]!.timedOutAfter, IDLE_MS, 'timed out after stream_idle');
  t.equal(streams[1]!.timedOutAfter, undefined, 'the others still run');

  filters.forEach((f: EventFilter) => f.close?.({ changed: false }));
  const pingsAtClose = streams.map((s) => s.pings);
  await eventually(() => gone() === 3, 5_000, 'every timer cleared as its stream closes');
  t.same(
    streams.map((s) => s.pings),
    pingsAtClose,
    'a closed stream is never pinged',
  );
});
