/**
 * Ends the open streams of a key that stopped working mid-stream (disabled, deleted, expired), each with
 * its API's error frame carrying the error the key's next request gets: 403 `key_disabled` when disabled,
 * 401 `unauthorized` when deleted or expired. The same code and status a client SDK raises on a refused
 * request, so callers handle a revoked stream as they handle a revoked key.
 *
 * Two paths, so correctness never rests on pub/sub: a key event (this instance's change at once, another
 * instance's within a pub/sub hop) re-reads that key; and every `everyMs` a sweep re-reads each key that
 * has streams open here, which also catches expiry and events lost while Redis was down.
 */
import type { Logger } from 'pino';
import { Errors, type GatewayError } from '../base/errors';
import type { UpstreamProxy } from '../proxy/upstream-proxy';
import { isExpired, type KeyRecord } from '../stores/key-store';
import type { KeyEvents } from './key-events';
import type { KeyService } from './key-service';

/** The error a key's requests get now, or undefined while it works. */
export function revokedError(record: KeyRecord | undefined, now: number): GatewayError | undefined {
  if (!record || isExpired(record, now)) return Errors.unauthorized();
  if (!record.enabled) return Errors.keyDisabled();
  return undefined;
}

export class KeyRevocation {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    private readonly keys: KeyService,
    private readonly proxy: UpstreamProxy,
    private readonly everyMs: number,
    private readonly logger: Logger,
  ) {}

  start(events: KeyEvents): void {
    events.on((id) => void this.check(id));
    this.timer = setInterval(() => void this.sweep(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Re-reads key `id` from the store, if it has streams here, and ends them when it no longer works. */
  async check(id: string): Promise<void> {
    if (!this.proxy.hasOpenStreams(id)) return;
    try {
      const error = revokedError(await this.keys.findById(id), Date.now());
      if (error) this.proxy.endStreamsOf(id, error);
    } catch (e) {
      // The store is unreachable: keep the streams; the next sweep asks again.
      this.logger.warn({ err: e, key: id }, 'key revocation check failed; retried by the next sweep');
    }
  }

  /** One pass over the keys with open streams; a pass still running (a slow store) is not doubled. */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await Promise.all(this.proxy.keysWithOpenStreams().map((id) => this.check(id)));
    } finally {
      this.sweeping = false;
    }
  }
}
