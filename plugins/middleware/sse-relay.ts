/**
 * Streams are relayed event by event, with the API's keep-alive ping while the client has had nothing
 * for `ping_every`, and ended with the API's error frame when the upstream stays silent for
 * `server.timeouts.stream_idle`. It watches a stream's timing and reads none of its events, so the relay
 * keeps its fast path. Without this stage (or another that watches streams), an upstream stream is
 * piped through untouched: no pings, no idle limit.
 * @example - sse-relay: { ping_every: 15s }
 */
import { inject } from 'tsyringe';
import { z } from 'zod';
import {
  ConfigToken,
  definePlugin,
  duration,
  type GatewayConfig,
  type GatewayContext,
} from '../../core/kit/plugin';
import type { EventFilter, Middleware, StreamControl } from '../../core/kit/stage';

export const sseRelayOptions = z.object({ ping_every: duration.default(15_000) }).strict();
type SseRelayOptions = z.output<typeof sseRelayOptions>;

/**
 * The open streams of this stage, checked together by one timer twice in the shorter of the two periods.
 * A timer of its own cost each stream an insert into Node's timer lists and a removal, more than the
 * checks themselves. The timer stops at the first check that finds no stream open, and never holds the
 * process: a stage replaced by a reload lets go of it with its last stream.
 */
class StreamWatch {
  private readonly open = new Set<StreamControl>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pingEveryMs: number,
    private readonly idleMs: number,
  ) {}

  /** Watches `stream` until its filter closes. */
  add(stream: StreamControl): EventFilter {
    this.open.add(stream);
    this.timer ??= setInterval(() => this.tick(), this.checkEveryMs()).unref();
    return { close: () => this.open.delete(stream) };
  }

  private checkEveryMs(): number {
    return Math.max(10, Math.min(this.pingEveryMs, this.idleMs) / 2);
  }

  private tick(): void {
    if (this.open.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    // A stream timed out here closes, and leaves the set, during the loop: a Set allows that.
    for (const stream of this.open) {
      if (stream.silentMs() >= this.idleMs) stream.timeOut(this.idleMs);
      else if (stream.quietMs() >= this.pingEveryMs) stream.ping();
    }
  }
}

@definePlugin({ kind: 'middleware', name: 'sse-relay', options: sseRelayOptions })
export class SseRelayMiddleware implements Middleware {
  private readonly watch: StreamWatch;

  constructor(options: SseRelayOptions, @inject(ConfigToken) config: GatewayConfig) {
    this.watch = new StreamWatch(options.ping_every, config.server.timeouts.stream_idle);
  }

  events(_ctx: GatewayContext, stream: StreamControl): EventFilter {
    return this.watch.add(stream);
  }
}
