/** One metered call. `id` is the request id (or, for video, the task id): a record is never written twice. */
export interface UsageRecord {
  readonly id: string;
  readonly key_id: string | null;
  readonly model: string;
  readonly upstream: string;
  readonly endpoint: string;
  /** The HTTP status the client received. */
  readonly status: number;
  readonly stream: boolean;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  /** Of completion_tokens, those spent thinking (where the vendor says). */
  readonly reasoning_tokens?: number | undefined;
  /** The vendor's total where it reports one, else prompt + completion. */
  readonly total_tokens: number;
  /** Of prompt_tokens, those read from and written to the vendor's prompt cache. */
  readonly cache_read_tokens?: number | undefined;
  readonly cache_write_tokens?: number | undefined;
  readonly images?: number | undefined;
  /** Video: seconds produced, the resolution billed, and the price from gateway.yaml's `prices:`. */
  readonly video_seconds?: number | undefined;
  readonly resolution?: string | undefined;
  readonly cost?: number | undefined;
  /** Set on records written by `recordOnce`: unique by id among those (client-chosen request ids are not). */
  readonly once?: true | undefined;
  /** True when the counts were estimated from what was delivered (a cut stream), not reported by the upstream. */
  readonly estimated: boolean;
  /** Why the call ended, when it did not end cleanly: `client_closed`, `upstream_cut`, `upstream_error`, `idle_timeout`, `shutdown`. */
  readonly outcome: string;
  readonly latency_ms: number;
  readonly created_at: string;
}

export interface UsageFilter {
  id?: string;
  key_id?: string;
  limit?: number;
}

/** Usage records. `record` must not block the request path: implementations batch and flush. */
export interface UsageStore {
  record(entry: UsageRecord): void;
  /**
   * Writes `entry` (marked `once`) unless a record with its id was written by an earlier `recordOnce` (on this or any
   * instance sharing the store, before or after a restart). Resolves true when it wrote the record,
   * false when it already existed, and only once the record is durable: billing relies on it.
   */
  recordOnce(entry: UsageRecord): Promise<boolean>;
  /** Resolves when everything recorded so far is durable. */
  flush(): Promise<void>;
  list(filter?: UsageFilter): Promise<UsageRecord[]>;
  close(): Promise<void>;
}
