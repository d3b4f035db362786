/** What the gateway knows about an API key. The key itself is never stored: only its keyed hash and a visible prefix. */
export interface KeyRecord {
  /** The visible prefix (`sk-` + 8 characters); also the id operators use. */
  readonly id: string;
  /** HMAC-SHA-256 of the full key with the server secret, base64url. */
  readonly hash: string;
  readonly description: string;
  readonly enabled: boolean;
  /** Models this key may use; empty means all. */
  readonly allowed_models: readonly string[];
  /** Requests per minute for this key, overriding the rate-limit default. */
  readonly rate_limit_rpm?: number;
  /** Tokens per minute (real usage, counted when each call ends), overriding the rate-limit default. */
  readonly rate_limit_tpm?: number;
  /** Calls in flight at once, overriding the rate-limit default. */
  readonly max_concurrent?: number;
  readonly created_at: string;
  /**
   * When the key stops working (UTC, `Date#toISOString` form, so string order is time order in every
   * store); absent: never. Records written before this field existed simply lack it.
   */
  readonly expires_at?: string;
  /** Spending limit; absent: none. */
  readonly budget?: KeyBudget;
  /** The team the key belongs to (TeamRecord.id); its calls count against the team's budget and limits too. */
  readonly team_id?: string;
  /** Guardrail rules marked `opt_in` that apply to this key's calls, by name; absent: none. */
  readonly guardrails?: readonly string[];
  /**
   * MCP tools this key may use, as names or globs over `<server>__<tool>` (core/keys/tool-access.ts);
   * absent: every tool (an empty list is stored as none).
   */
  readonly allowed_tools?: readonly string[];
}

export interface KeyBudget {
  /** Money in integer millionths of the unit (micro-units): never a float. */
  readonly amount_micros: number;
  /** `total`: over the key's life; `month`: per calendar month (UTC). */
  readonly period: 'total' | 'month';
}

export interface NewKey {
  description?: string;
  allowed_models?: readonly string[];
  rate_limit_rpm?: number;
  rate_limit_tpm?: number;
  max_concurrent?: number;
  expires_at?: string;
  budget?: KeyBudget;
  team_id?: string;
  guardrails?: readonly string[];
  allowed_tools?: readonly string[];
}

/** Fields to change; a field given as undefined is removed from the record. */
export type KeyChange = {
  -readonly [
    F in
      | 'description'
      | 'enabled'
      | 'allowed_models'
      | 'rate_limit_rpm'
      | 'rate_limit_tpm'
      | 'max_concurrent'
      | 'expires_at'
      | 'budget'
      | 'team_id'
      | 'guardrails'
      | 'allowed_tools'
  ]?: KeyRecord[F] | undefined;
};

/** A key's state as listings show and filter it; `expired` wins over enabled/disabled. */
export type KeyStatus = 'enabled' | 'disabled' | 'expired';

/** True when the key is past its expiry at `now` (milliseconds since the epoch). */
export function isExpired(record: Pick<KeyRecord, 'expires_at'>, now: number): boolean {
  return record.expires_at !== undefined && Date.parse(record.expires_at) <= now;
}

export function keyStatus(record: Pick<KeyRecord, 'enabled' | 'expires_at'>, now: number): KeyStatus {
  if (isExpired(record, now)) return 'expired';
  return record.enabled ? 'enabled' : 'disabled';
}

/** One page of keys, in id order. */
export interface KeyPageQuery {
  /** Only keys whose id sorts after this one (the previous page's last id). */
  readonly after?: string;
  /** At most this many records. */
  readonly limit: number;
  readonly status?: KeyStatus;
  /** Case-insensitive substring of the description or the id. */
  readonly q?: string;
  /** Only the keys of this team. */
  readonly team_id?: string;
  /** The time `status` is judged at, as `Date#toISOString`. */
  readonly now: string;
}

/** Persistent key storage. Implementations: embedded (file under the data directory) and MongoDB. */
export interface KeyStore {
  /** Stores a record; fails if the id is taken. */
  insert(record: KeyRecord): Promise<void>;
  /**
   * Stores the record as the store's first key, unless the store already has keys or another instance
   * sharing it won that race; true when this record was stored. Instances starting together over one
   * store thus create one first key between them, not one each. (MongoDB remembers the claim, so it
   * creates a first key once in the store's life; the embedded store, one instance's, when empty.)
   */
  insertFirst(record: KeyRecord): Promise<boolean>;
  findByHash(hash: string): Promise<KeyRecord | undefined>;
  findById(id: string): Promise<KeyRecord | undefined>;
  /** Every key, in insertion order. */
  list(): Promise<KeyRecord[]>;
  /** Keys matching the query, sorted by id, at most `limit`. */
  page(query: KeyPageQuery): Promise<KeyRecord[]>;
  /** Returns the updated record, or undefined when no key has this id. */
  update(id: string, change: KeyChange): Promise<KeyRecord | undefined>;
  /** Returns the deleted record, or undefined when no key has this id. */
  delete(id: string): Promise<KeyRecord | undefined>;
  close(): Promise<void>;
}
