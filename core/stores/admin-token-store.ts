/**
 * Admin tokens as stored: made with `POST /admin/tokens`, each with a role. Like API keys, the token itself
 * is never stored: only its keyed hash and a visible prefix (core/admin/admin-token-format.ts).
 */

/**
 * The roles of core/admin/actor.ts, restated here below the admin API (a store imports nothing above
 * it); the admin code assigns one to the other, so the two lists cannot drift apart unnoticed.
 */
export type AdminTokenRole = 'admin' | 'team_admin' | 'viewer';

export interface AdminTokenRecord {
  /** The visible prefix (`gat-` + 8 characters); also the id operators use. */
  readonly id: string;
  /** HMAC-SHA-256 of the full token with the key secret, base64url. */
  readonly hash: string;
  readonly description: string;
  readonly role: AdminTokenRole;
  /** Set for `team_admin` only: the team it acts on. */
  readonly team_id?: string;
  readonly created_at: string;
}

/** Persistent admin token storage. Implementations: embedded (admin-tokens.jsonl) and MongoDB (`admin_tokens`). */
export interface AdminTokenStore {
  /** Stores a record; fails if the id or the hash is taken. */
  insert(record: AdminTokenRecord): Promise<void>;
  findByHash(hash: string): Promise<AdminTokenRecord | undefined>;
  findById(id: string): Promise<AdminTokenRecord | undefined>;
  /** Every token, in insertion order. */
  list(): Promise<AdminTokenRecord[]>;
  /** Returns the deleted record, or undefined when no token has this id. */
  delete(id: string): Promise<AdminTokenRecord | undefined>;
  close(): Promise<void>;
}
