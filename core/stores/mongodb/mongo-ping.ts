/**
 * Whether MongoDB answers now: `{ping: 1}` on the stores' database, given `timeoutMs` to answer. A
 * ping still waiting (for a server to select, up to 10 s) is not sent again, so readiness probes
 * against a lost server never pile up.
 */
import type { Db } from 'mongodb';
import { describeError, HEALTHY, type StoreHealth } from '../store-health';

export class MongoPing {
  private pending: Promise<StoreHealth> | undefined;

  constructor(
    private readonly db: Db,
    private readonly timeoutMs = 1_000,
  ) {}

  async health(): Promise<StoreHealth> {
    this.pending ??= this.db.command({ ping: 1 }).then(
      () => HEALTHY,
      (e: unknown) => ({ ok: false, reason: `MongoDB: ping failed (${describeError(e)})` }),
    );
    const ping = this.pending;
    void ping.finally(() => {
      if (this.pending === ping) this.pending = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<StoreHealth>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, reason: `MongoDB: no answer to a ping within ${this.timeoutMs} ms` }),
        this.timeoutMs,
      ).unref();
    });
    try {
      return await Promise.race([ping, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
