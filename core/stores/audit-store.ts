/**
 * The audit log: one record per changing admin call (whether it succeeded or not) and per refused one.
 * A record holds who, what, on what, how it ended and which public fields changed; never a key, a token,
 * a hash or any other secret (core/admin/audit-changes.ts builds `changes` from the public views only).
 */
import type { AdminTokenRole } from './admin-token-store';

/** Who made the call; `unknown` for a caller no actor source recognised (a 401). */
export interface AuditActor {
  readonly kind: 'token' | 'person' | 'unknown';
  /** The token's id (never the token), the person's subject, or empty when unknown. */
  readonly id: string;
  readonly name: string;
  readonly role?: AdminTokenRole;
  readonly team_id?: string;
}

/** One changed field as the public view shows it; null where it was or became absent. */
export interface AuditChange {
  readonly before: unknown;
  readonly after: unknown;
}

export interface AuditRecord {
  /** Sorts by time (the newest last): the order of listings and the cursor of pages. */
  readonly id: string;
  /** ISO 8601, UTC. */
  readonly at: string;
  readonly actor: AuditActor;
  /** `key.create`, `key.update`, `token.delete`, `config.reload`, `access.denied`, … */
  readonly action: string;
  /** What the call was aimed at: a kind (`key`, `token`, `team`, `config`, `route`) and an id. */
  readonly target: { readonly kind: string; readonly id: string };
  /** The answer's status, and its error code when it was an error. */
  readonly outcome: { readonly status: number; readonly code?: string };
  readonly changes: Readonly<Record<string, AuditChange>>;
  readonly request_id: string;
  readonly client_address: string;
}

/** A page of the log, newest first. */
export interface AuditQuery {
  /** Only records older than this one (the previous page's last id). */
  readonly before?: string;
  readonly limit: number;
  /** The actor's id. */
  readonly actor?: string;
  /** The target's id. */
  readonly target?: string;
  readonly action?: string;
  /** `at` from this time (inclusive), ISO 8601 UTC. */
  readonly from?: string;
  /** `at` before this time (exclusive), ISO 8601 UTC. */
  readonly to?: string;
}

/** True when `record` matches the query's filters (the cursor and limit aside). */
export function matchesAudit(record: AuditRecord, query: AuditQuery): boolean {
  return (
    (query.before === undefined || record.id < query.before) &&
    (query.actor === undefined || record.actor.id === query.actor) &&
    (query.target === undefined || record.target.id === query.target) &&
    (query.action === undefined || record.action === query.action) &&
    (query.from === undefined || record.at >= query.from) &&
    (query.to === undefined || record.at < query.to)
  );
}

/**
 * Append-only storage of audit records. Implementations: embedded (audit.jsonl under the data directory,
 * pruned periodically) and MongoDB (`audit`, a TTL index per retention).
 */
export interface AuditStore {
  /** Resolves once the record is durable. */
  append(record: AuditRecord): Promise<void>;
  /** Records matching the query, newest first, at most `limit`. */
  page(query: AuditQuery): Promise<AuditRecord[]>;
  close(): Promise<void>;
}
