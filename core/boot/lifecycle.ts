/**
 * A gateway's running parts. Each names the parts it needs: it starts after them and stops before them,
 * whatever order the parts were added in (part-order.ts), the way Fastify runs `onClose` hooks in reverse.
 * So the listener, which needs every part it serves from, stops accepting first, and the stores, which
 * every part that writes needs, are flushed last. A start that fails stops what had started.
 */
import type { Logger } from 'pino';
import type { Part } from './part';
import { partOrder } from './part-order';

export type { Part } from './part';

export class Lifecycle {
  private readonly parts: { readonly part: Part; running: boolean }[] = [];

  constructor(private readonly logger: Logger) {}

  add(part: Part): void {
    this.parts.push({ part, running: !part.start });
  }

  /** Adds a builder's parts, and hands back what it built. */
  join<T extends { readonly parts: readonly Part[] }>(built: T): T {
    for (const part of built.parts) this.add(part);
    return built;
  }

  /**
   * Starts the parts not yet running, each after what it needs; when one fails, stops those running and
   * rethrows. A need that names no part, or parts that need each other, fail the start before any starts.
   */
  async start(): Promise<void> {
    try {
      for (const entry of partOrder(this.parts, true)) {
        if (entry.running) continue;
        await entry.part.start?.();
        entry.running = true;
      }
    } catch (e) {
      await this.stop(0);
      throw e;
    }
  }

  /** Stops the running parts, each before what it needs; one that fails to stop is logged and the rest still stop. */
  async stop(graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    for (const entry of partOrder(this.parts, false).reverse()) {
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
