import { token } from '../base/token';

/** One metered call. `id` is the request id (or, for video, the task id): a record is never written twice. */
export interface UsageRecord {
  readonly id: string;
  readonly key_id: string | null;
  /** The key's team when the call was made (a key moved later leaves its past spend with the old team). */
  readonly team_id?: string | undefined;
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
  /** Images: the requested `size` and `quality`, where given (they may set the price per image). */
  readonly image_size?: string | undefined;
  readonly image_quality?: string | undefined;
  /** Video: seconds produced and the resolution billed. */
  readonly video_seconds?: number | undefined;
  readonly resolution?: string | undefined;
  /**
   * The price from gateway.yaml's `prices:`, in integer micro-units (millionths of the currency unit;
   * pricing.ts says how it is rounded). Null when the model has no price: cost unknown, never 0.
   */
  readonly cost_micros: number | null;
  /**
   * `hit` when a stage replayed an earlier call's answer (a cache's hit: StageAnswer.replayed); absent for
   * every other call. A hit costs nothing (`cost_micros` 0) and keeps the token counts of the call it
   * repeats.
   */
  readonly cache?: 'hit' | undefined;
  /**
   * On a hit only: what the call would have cost at its model's price, in micro-units, as `cost_micros`
   * would have been; null when the model has no price (unknown, never 0). Absent on every other call.
   */
  readonly saved_micros?: number | null | undefined;
  /** What guardrails did to the call (blocked, masked, logged, could not check), in order; absent when none acted. */
  readonly guardrail?: readonly { readonly name: string; readonly action: string }[] | undefined;
  /**
   * A call to a tool through the MCP endpoint (`endpoint: 'mcp'`): the tool's own name and its server's
   * name in gateway.yaml. Its `model` is the name the client called it by (`<server>__<tool>`), and
   * `upstream` its server. Absent on every other call.
   */
  readonly tool?: string | undefined;
  readonly server?: string | undefined;
  /**
   * A line of a batch: the batch's id and the line's `custom_id`. Metered like the same call alone; a
   * line a vendor ran in its own batch is priced at the vendor's batch price. Absent on every other call.
   */
  readonly batch_id?: string | undefined;
  readonly custom_id?: string | undefined;
  /** Set on records written by `recordOnce`: unique by id among those (client-chosen request ids are not). */
  readonly once?: true | undefined;
  /** True when the counts were estimated from what was delivered (a cut stream), not reported by the upstream. */
  readonly estimated: boolean;
  /** Why the call ended, when it did not end cleanly: `client_closed`, `upstream_cut`, `upstream_error`, `idle_timeout`, `shutdown`, `key_revoked` (the key was disabled, deleted or expired mid-stream). */
  readonly outcome: string;
  readonly latency_ms: number;
  readonly created_at: string;
}

export interface UsageFilter {
  id?: string;
  key_id?: string;
  team_id?: string;
  model?: string;
  /** The endpoint's id as records hold it (`mcp`: the MCP endpoint's tool calls). */
  endpoint?: string;
  limit?: number;
}

/** What a usage summary may be grouped by: any of key, team, model and endpoint, and at most one period. */
export type SummaryDimension = 'key' | 'team' | 'model' | 'endpoint' | 'hour' | 'day';

export interface UsageSummaryQuery {
  /** Non-empty; at most one of `hour` and `day`. */
  readonly group_by: readonly SummaryDimension[];
  /** Records created at or after `from`, and before `to` (epoch ms). Hour-aligned bounds are exact. */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  /** Only these keys' records (any when absent). */
  readonly key_ids?: readonly string[] | undefined;
  /** Only the records of calls made by these teams' keys (any when absent). */
  readonly team_ids?: readonly string[] | undefined;
  /** Only these models' records (any when absent). */
  readonly models?: readonly string[] | undefined;
  /** Only the records of calls to these endpoints, by id (`chat-completions`, `responses`; any when absent). */
  readonly endpoints?: readonly string[] | undefined;
}

/** What a summary adds up per group: the roll-ups keep these per bucket (usage-rollup-level.ts). */
export interface UsageTotals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Summed over the records with a known cost. */
  cost_micros: number;
  /** Records whose cost is unknown (their model had no price). */
  cost_unknown_requests: number;
  /** What the cache's hits saved: their `saved_micros`, summed where known (0 without hits). */
  saved_micros: number;
  /** Of `requests` and `cost_micros`: the lines of batches (records with a `batch_id`), so batch spend shows apart. */
  batch_requests: number;
  batch_cost_micros: number;
}

/** One group's totals. `key_id`, `team_id`, `model`, `endpoint`, `period` are set when grouped by them. */
export interface UsageSummaryRow extends UsageTotals {
  key_id?: string | null;
  /** Null for the calls of keys without a team. */
  team_id?: string | null;
  model?: string;
  /** The endpoint's id, as records hold it. */
  endpoint?: string;
  /** ISO start of the hour or day (UTC). */
  period?: string;
}

/** How the store's writing is doing: for logs and checks now, for metrics later. */
export interface UsageStats {
  /** Records waiting to be written. */
  readonly queued: number;
  /** `storage.usage_queue_max`: at this many, new billable calls are refused. */
  readonly max: number;
  /** Failed write attempts since the store opened (a batch tried three times counts three). */
  readonly failedWrites: number;
  /** From a failed write until the next one that succeeds. */
  readonly failing: boolean;
  /** While failing, how long until the next attempt. */
  readonly retryInMs: number;
}

/**
 * Usage records. `record` must not block the request path: implementations batch and flush, retry failed
 * writes, and never drop a record. Their queue is bounded at the door: while `accepting()` is false the
 * gateway starts no new billable call (503 `usage_backlog`), and records of calls under way still queue.
 */
export interface UsageStore {
  record(entry: UsageRecord): void;
  /** False while `max` records wait to be written. Asked on every billable request: one comparison. */
  accepting(): boolean;
  stats(): UsageStats;
  /**
   * Writes `entry` (marked `once`) unless a record with its id was written by an earlier `recordOnce` (on this or any
   * instance sharing the store, before or after a restart). Resolves true when it wrote the record,
   * false when it already existed, and only once the record is durable: billing relies on it.
   */
  recordOnce(entry: UsageRecord): Promise<boolean>;
  /** Resolves when everything recorded so far is durable; rejects if a write fails (the records stay queued). */
  flush(): Promise<void>;
  list(filter?: UsageFilter): Promise<UsageRecord[]>;
  /**
   * Totals of the records grouped by `query.group_by`, sorted by period, then key, team, model, endpoint. Writes
   * what is queued first, like `list`.
   */
  summary(query: UsageSummaryQuery): Promise<UsageSummaryRow[]>;
  /** When each of these keys last made a call (its latest record's `created_at`); keys never used are absent. */
  lastUsed(keyIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * Writes what is queued, retrying failed writes for up to `waitMs` (default: one attempt), logs the
   * records it could not write, and closes.
   */
  close(waitMs?: number): Promise<void>;
}

export const UsageStoreToken = token<UsageStore>('UsageStore');
