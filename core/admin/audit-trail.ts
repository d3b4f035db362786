/**
 * Writes the admin API's audit records (core/stores/audit-store.ts), before the answer is sent: the
 * admin server awaits `write` for every changing call, whatever its outcome, and for every refused one.
 *
 * When a write fails, the call is answered as it would have been, and the record (which holds no secret)
 * goes to the error log in full instead. A change cannot be taken back once made, and refusing to answer
 * would hide from the operator whether it was; the error log keeps the trail, and the store's health
 * (readiness) shows the failing writes.
 */
import type { Logger } from 'pino';
import type { AuditActor, AuditRecord, AuditStore } from '../stores/audit-store';
import type { Actor } from './actor';

export type AuditEvent = Omit<AuditRecord, 'id' | 'at'>;

/** An actor as its audit record names it; `unknown` when no source recognised the caller. */
export function auditActor(actor: Actor | undefined): AuditActor {
  if (!actor) return { kind: 'unknown', id: '', name: '' };
  return {
    kind: actor.kind,
    id: actor.id,
    name: actor.name,
    role: actor.role,
    ...(actor.team_id !== undefined ? { team_id: actor.team_id } : {}),
  };
}

export class AuditTrail {
  /** The last id's time and sequence within it, so ids made in one millisecond still sort in order. */
  private last = { ms: 0, seq: 0 };

  constructor(
    private readonly store: AuditStore,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async write(event: AuditEvent): Promise<void> {
    const ms = this.now();
    const record: AuditRecord = { id: this.nextId(ms), at: new Date(ms).toISOString(), ...event };
    try {
      await this.store.append(record);
    } catch (e) {
      this.logger.error({ err: e, audit: record }, 'audit record not written; the call was answered');
    }
  }

  /** Base-36 time, then a sequence, then randomness (instances sharing a store): sorts by time as text. */
  private nextId(ms: number): string {
    const at = Math.max(ms, this.last.ms);
    this.last = { ms: at, seq: at === this.last.ms ? this.last.seq + 1 : 0 };
    const random = Math.floor(Math.random() * 36 ** 6);
    return [
      at.toString(36).padStart(9, '0'),
      this.last.seq.toString(36).padStart(4, '0'),
      random.toString(36).padStart(6, '0'),
    ].join('');
  }
}
