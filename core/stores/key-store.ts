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
  readonly created_at: string;
}

export interface NewKey {
  description?: string;
  allowed_models?: readonly string[];
  rate_limit_rpm?: number;
}

export type KeyChange = Partial<
  Pick<KeyRecord, 'description' | 'enabled' | 'allowed_models' | 'rate_limit_rpm'>
>;

/** Persistent key storage. Implementations: embedded (file under the data directory); MongoDB later. */
export interface KeyStore {
  /** Stores a record; fails if the id is taken. */
  insert(record: KeyRecord): Promise<void>;
  findByHash(hash: string): Promise<KeyRecord | undefined>;
  findById(id: string): Promise<KeyRecord | undefined>;
  list(): Promise<KeyRecord[]>;
  /** Returns the updated record, or undefined when no key has this id. */
  update(id: string, change: KeyChange): Promise<KeyRecord | undefined>;
  /** Returns the deleted record, or undefined when no key has this id. */
  delete(id: string): Promise<KeyRecord | undefined>;
  close(): Promise<void>;
}
