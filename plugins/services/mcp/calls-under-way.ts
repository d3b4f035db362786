/**
 * The tool calls this instance is relaying, by session and the client's request id, so that the
 * client's `notifications/cancelled` (which arrives as a request of its own) stops the right one. Behind
 * a balancer that request may reach another instance: a cancellation for a call not under way here is
 * published on Redis (when configured), and the instance relaying it stops it. Kept across reloads: a
 * call outlives the snapshot it started under.
 */
import type { RedisLink } from '../../../core/kit/tokens';

const CHANNEL = 'mcp:cancel';

interface Cancellation {
  readonly session: string;
  readonly requestId: string | number;
  readonly reason: string;
}

const nameOf = (session: string, requestId: string | number): string => `${session} ${String(requestId)}`;

export class CallsUnderWay {
  private readonly calls = new Map<string, AbortController>();

  constructor(private readonly redis: RedisLink | undefined) {
    redis?.subscribe(CHANNEL, (message) => {
      const { session, requestId, reason } = JSON.parse(message) as Cancellation;
      this.abort(session, requestId, reason);
    });
  }

  /** A signal that aborts when the client cancels the call; `done` forgets it. */
  start(session: string, requestId: string | number): { signal: AbortSignal; done: () => void } {
    const name = nameOf(session, requestId);
    const controller = new AbortController();
    this.calls.set(name, controller);
    return { signal: controller.signal, done: () => this.calls.delete(name) };
  }

  /** Stops the call here, or, where it is not under way here, wherever it is (best effort, as pub/sub is). */
  cancel(session: string, requestId: string | number, reason: string): void {
    if (this.abort(session, requestId, reason) || !this.redis) return;
    const cancellation: Cancellation = { session, requestId, reason };
    this.redis.publish(CHANNEL, JSON.stringify(cancellation)).catch(() => undefined);
  }

  private abort(session: string, requestId: string | number, reason: string): boolean {
    const controller = this.calls.get(nameOf(session, requestId));
    controller?.abort(new Error(reason));
    return controller !== undefined;
  }
}
