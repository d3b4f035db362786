/**
 * Streams are relayed event by event with keep-alive pings while the upstream is silent. Without this
 * stage in the pipeline, upstream streams are piped through untouched (no pings, no usage read).
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
import { type Middleware, type Next, RELAY_POLICY, type RelayPolicy } from '../../core/kit/stage';

export const sseRelayOptions = z.object({ ping_every: duration.default(15_000) }).strict();
type SseRelayOptions = z.output<typeof sseRelayOptions>;

@definePlugin({ kind: 'middleware', name: 'sse-relay', options: sseRelayOptions })
export class SseRelayMiddleware implements Middleware {
  private readonly policy: RelayPolicy;

  constructor(options: SseRelayOptions, @inject(ConfigToken) config: GatewayConfig) {
    this.policy = { pingEveryMs: options.ping_every, idleTimeoutMs: config.server.timeouts.stream_idle };
  }

  handle(ctx: GatewayContext, next: Next): Promise<void> {
    if (ctx.stream) ctx.set(RELAY_POLICY, this.policy);
    return next();
  }
}
