/**
 * A gateway's running parts, started in the order they are added (each after what it depends on) and
 * stopped in reverse, the way Fastify runs `onClose` hooks: the listener added last stops accepting
 * first, and the stores added first are flushed last. A start that fails stops what had started.
 */
import type { Logger } from 'pino';

/** One part of a running gateway. A part without `start` is running when it is added. */
export interface Part {
  readonly name: string;
  start?(): void | Promise<void>;
  /** `deadline` (epoch ms) is when the grace period of the whole stop runs out. */
  stop?(deadline: number): void | Promise<void>;
}

export class Lifecycle {
  private readonly parts: { readonly part: Part; running: boolean }[] = [];

  constructor(private readonly logger: Logger) {}

  add(part: Part): void {
    this.parts.push({ part, running: !part.start });
  }

  /** Starts the parts not yet running, in order; when one fails, stops those running and rethrows. */
  async start(): Promise<void> {
    try {
      for (const entry of this.parts) {
        if (entry.running) continue;
        await entry.part.start?.();
        entry.running = true;
      }
    } catch (e) {
      await this.stop(0);
      throw e;
    }
  }

  /** Stops the running parts in reverse order; one that fails to stop is logged and the rest still stop. */
  async stop(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    for (const entry of [...this.parts].reverse()) {
      if (!entry.running) continue;
      entry.running = false;
      try {
        await entry.part.stop?.(deadline);
      } catch (e) {
        this.logger.error({ err: e }, `stopping ${entry.part.name} failed`);
      }
    }
  }
}
