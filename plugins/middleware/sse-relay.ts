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

@definePlugin({ kind: 'middleware', name: 'sse-relay', options: sseRelayOptions })
export class SseRelayMiddleware implements Middleware {
  private readonly pingEveryMs: number;
  private readonly idleMs: number;

  constructor(options: SseRelayOptions, @inject(ConfigToken) config: GatewayConfig) {
    this.pingEveryMs = options.ping_every;
    this.idleMs = config.server.timeouts.stream_idle;
  }

  events(_ctx: GatewayContext, stream: StreamControl): EventFilter {
    return new KeepAlive(stream, this.pingEveryMs, this.idleMs);
  }
}

/**
 * One stream's keep-alive and idle limit, checked twice in the shorter of the two periods. A timer per
 * stream, not one for the stage over a Set of its streams: a Set churned by every stream keeps them all
 * through young collections (bench/results/2026-11-30-memory.md).
 */
class KeepAlive implements EventFilter {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly stream: StreamControl,
    private readonly pingEveryMs: number,
    private readonly idleMs: number,
  ) {
    this.timer = setInterval(() => this.tick(), Math.max(10, Math.min(pingEveryMs, idleMs) / 2));
  }

  close(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    if (this.stream.silentMs() >= this.idleMs) this.stream.timeOut(this.idleMs);
    else if (this.stream.quietMs() >= this.pingEveryMs) this.stream.ping();
  }
}
