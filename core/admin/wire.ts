/**
 * The admin API's answers as they travel, stated once: the admin code that builds them declares that it
 * returns these types, and the console (console/src) and the CLI read the answers with them, so a change
 * on either side that breaks the other fails to compile. The stores, below the admin API, keep their own
 * types; where a stored shape goes out as it is (a summary row, a task's params), the code that sends it
 * declares it as the type here, so a store change that breaks an answer fails to compile too.
 *
 * Types only, and no imports: the console's browser bundle and its type-check (console/src/tsconfig.json,
 * DOM and no Node types) include this file, and must take nothing else from the server.
 */

/** A key's state as listings show and filter it; `expired` wins over enabled/disabled. */
export type KeyStatus = 'enabled' | 'disabled' | 'expired';

export interface KeyBudget {
  /** Money in integer millionths of the unit (micro-units): never a float. */
  readonly amount_micros: number;
  /** `total`: over the key's life; `month`: per calendar month (UTC). */
  readonly period: 'total' | 'month';
}

/** A key as the admin API shows it: never its hash. */
export interface PublicKey {
  readonly id: string;
  readonly description: string;
  readonly enabled: boolean;
  /** `expired` when past `expires_at`, else `enabled` or `disabled`. */
  readonly status: KeyStatus;
  /** Models this key may use; empty means all. */
  readonly allowed_models: readonly string[];
  readonly rate_limit_rpm?: number;
  readonly rate_limit_tpm?: number;
  readonly max_concurrent?: number;
  /** ISO 8601, UTC; absent: never expires. */
  readonly expires_at?: string;
  readonly budget?: KeyBudget;
  /** The team the key belongs to, if any. */
  readonly team_id?: string;
  /** Guardrail rules marked `opt_in` that apply to this key's calls; absent: none. */
  readonly guardrails?: readonly string[];
  /** MCP tools this key may use, as names or globs (`search__*`); absent: every tool. */
  readonly allowed_tools?: readonly string[];
  readonly created_at: string;
}

/** A key as the listings and `GET /admin/keys/{id}` show it: its settings, its last use and its spend. */
export interface KeyWithActivity extends PublicKey {
  /** The `created_at` of the key's latest usage record; null when it was never used. */
  readonly last_used_at: string | null;
  /** Cost of the key's records in its budget period (its whole life without a monthly budget), micro-units. */
  readonly spent_micros: number;
  /** Records in that period whose cost is unknown (their model had no price). */
  readonly spent_unknown_requests: number;
  /** Set on keys declared in gateway.yaml, which the admin API only reads. */
  readonly declared?: true;
}

/** `POST /admin/keys` and rotate: the only answers that carry a full key, once. */
export interface CreatedKey {
  readonly key: string;
  readonly record: PublicKey;
  /** Rotate only: the id of the key this one replaces. */
  readonly replaces?: string;
}

/** A team as the admin API shows it: a group of keys with a budget and limits over all of them. */
export interface PublicTeam {
  readonly id: string;
  /** Unique among teams. */
  readonly name: string;
  readonly budget?: KeyBudget;
  readonly rate_limit_rpm?: number;
  readonly rate_limit_tpm?: number;
  readonly max_concurrent?: number;
  /** Models the team's keys may use; empty means all (a key's own list narrows it further). */
  readonly allowed_models: readonly string[];
  /** Guardrail rules marked `opt_in` that apply to the calls of all the team's keys; absent: none. */
  readonly guardrails?: readonly string[];
  /** MCP tools the team's keys may use, as names or globs; absent: every tool (a key's list narrows it). */
  readonly allowed_tools?: readonly string[];
  readonly metadata: Readonly<Record<string, string>>;
  readonly created_at: string;
}

/** A team as `GET /admin/teams` and `GET /admin/teams/{id}` show it: its settings, its keys and its spend. */
export interface TeamWithActivity extends PublicTeam {
  /** Keys in the team, stored and declared. */
  readonly key_count: number;
  /** Cost of the team's records in its budget period (its whole life without a monthly budget), micro-units. */
  readonly spent_micros: number;
  /** Records in that period whose cost is unknown (their model had no price). */
  readonly spent_unknown_requests: number;
}

/** One group's totals. `key_id`, `team_id`, `model`, `endpoint`, `period` are set when grouped by them. */
export interface UsageSummaryRow {
  key_id?: string | null;
  /** Null for the calls of keys without a team. */
  team_id?: string | null;
  model?: string;
  /** The endpoint's id (`chat-completions`, `responses`, `embeddings`, …). */
  endpoint?: string;
  /** ISO start of the hour or day (UTC). */
  period?: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Summed over the records with a known cost. */
  cost_micros: number;
  /** Records whose cost is unknown (their model had no price). */
  cost_unknown_requests: number;
  /** What the cache's hits saved: their `saved_micros`, summed where known (0 without hits). */
  saved_micros: number;
  /** Of `requests` and `cost_micros`: the lines of batches, so batch spend shows apart. */
  batch_requests: number;
  batch_cost_micros: number;
}

/**
 * One metered call as `GET /admin/usage` lists it: the stored record as it is (core/stores/usage-store.ts
 * says what each field means). Money in micro-units; `cost_micros` null when the price is unknown.
 */
export interface UsageRecord {
  readonly id: string;
  readonly key_id: string | null;
  readonly team_id?: string | undefined;
  readonly model: string;
  readonly upstream: string;
  /** The endpoint's id; `mcp` for a tool call through the MCP endpoint. */
  readonly endpoint: string;
  readonly status: number;
  readonly stream: boolean;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly reasoning_tokens?: number | undefined;
  readonly total_tokens: number;
  readonly cache_read_tokens?: number | undefined;
  readonly cache_write_tokens?: number | undefined;
  readonly images?: number | undefined;
  readonly image_size?: string | undefined;
  readonly image_quality?: string | undefined;
  readonly video_seconds?: number | undefined;
  readonly resolution?: string | undefined;
  readonly cost_micros: number | null;
  readonly cache?: 'hit' | undefined;
  readonly saved_micros?: number | null | undefined;
  readonly guardrail?: readonly { readonly name: string; readonly action: string }[] | undefined;
  /** A tool call (`endpoint: 'mcp'`): the server's own name of the tool, and the server's name. */
  readonly tool?: string | undefined;
  readonly server?: string | undefined;
  /** A line of a batch: the batch's id and the line's `custom_id`. */
  readonly batch_id?: string | undefined;
  readonly custom_id?: string | undefined;
  readonly once?: true | undefined;
  readonly estimated: boolean;
  /** How the call ended: `ok`, or why not (`client_closed`, `upstream_error`, …; a tool's `vendor_error`). */
  readonly outcome: string;
  readonly latency_ms: number;
  /** ISO 8601, UTC. */
  readonly created_at: string;
}

export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface TaskError {
  readonly code: string;
  readonly message: string;
}

/** What the gateway read from the submitted body for billing and display. */
export interface TaskParams {
  readonly resolution?: string;
  readonly duration_s?: number;
}

/** What the upstream delivered, as billing needs it. */
export interface TaskUsage {
  /** Seconds of video produced. */
  readonly video_seconds?: number;
  /** Upstream tokens (videob bills in tokens). */
  readonly tokens?: number;
  /** The resolution the upstream says it made, where it says (it wins over the one asked for). */
  readonly resolution?: string;
}

/** A video task as `GET /admin/tasks` shows it: no lease, idempotency body hash or poller bookkeeping. */
export interface TaskView {
  readonly id: string;
  readonly status: TaskStatus;
  readonly model: string;
  readonly key_id: string | null;
  /** The key's team when the task was submitted; absent: none. */
  readonly team_id?: string;
  readonly protocol: string;
  readonly upstream: string;
  readonly upstream_task_id: string | null;
  /** ISO 8601, UTC. */
  readonly created_at: string;
  readonly finished_at: string | null;
  readonly cost_micros: number | null;
  readonly error: TaskError | null;
  readonly video_url: string | null;
  readonly params: TaskParams;
  readonly usage: TaskUsage | null;
  readonly polls: number;
  readonly request_id: string;
}

/** `GET /admin/tasks/{id}`: the view and every status the task has had. */
export interface TaskDetail extends TaskView {
  readonly history: readonly { readonly status: TaskStatus; readonly at: string }[];
}

/** A whole listing: `GET /admin/usage`, `GET /admin/usage/summary`, `GET /admin/keys/declared`. */
export interface List<T> {
  readonly data: readonly T[];
}

/** A page of a server-paged listing; `next_cursor` asks for the next one, null on the last. */
export interface Page<T> extends List<T> {
  readonly next_cursor: string | null;
}

/** What an admin token may do: `admin` everything, `team_admin` its own team's keys, usage and tasks, `viewer` read. */
export type AdminRole = 'admin' | 'team_admin' | 'viewer';

/** An admin token as `GET /admin/tokens` shows it: never the token or its hash. */
export interface PublicAdminToken {
  /** The visible prefix (`gat-` + 8 characters), or `bootstrap` for the bootstrap token. */
  readonly id: string;
  readonly description: string;
  readonly role: AdminRole;
  /** Set for `team_admin`: its team. */
  readonly team_id?: string;
  /** ISO 8601, UTC; null for the bootstrap token, which comes from the environment or the data directory. */
  readonly created_at: string | null;
  /** Set on the bootstrap token, which cannot be deleted through the API. */
  readonly bootstrap?: true;
}

/** `POST /admin/tokens`: the only answer that carries a full token, once. */
export interface CreatedAdminToken {
  readonly token: string;
  readonly record: PublicAdminToken;
}

/** One record of the audit log (`GET /admin/audit`). */
export interface AuditEntry {
  readonly id: string;
  readonly at: string;
  readonly actor: {
    readonly kind: 'token' | 'person' | 'unknown';
    readonly id: string;
    readonly name: string;
    readonly role?: AdminRole;
    readonly team_id?: string;
  };
  readonly action: string;
  readonly target: { readonly kind: string; readonly id: string };
  readonly outcome: { readonly status: number; readonly code?: string };
  /** Each changed field of the public view, before and after (null where absent). */
  readonly changes: Readonly<Record<string, { readonly before: unknown; readonly after: unknown }>>;
  readonly request_id: string;
  readonly client_address: string;
}

/** `GET /auth/config` (public): whether the console offers single sign-on. */
export interface SignOnOffer {
  readonly sso: boolean;
}

/** Who makes an admin call: an admin token, or a person signed in through single sign-on. */
export interface Caller {
  readonly kind: 'token' | 'person';
  /** The token's id (never the token), or the person's subject at the identity provider. */
  readonly id: string;
  readonly name: string;
  readonly role: AdminRole;
  /** Set for `team_admin`: the only team it acts on. */
  readonly team_id?: string;
}

/** `GET /admin/whoami`: the caller, as the admin API judges it (the console shows what its role may do). */
export interface WhoAmI {
  readonly actor: Caller;
}

/** `GET /admin/session`: the console session single sign-on made (core/admin/sso/). */
export interface ConsoleSession {
  readonly actor: Caller;
  /** ISO 8601. */
  readonly expires_at: string;
  /** What every changing call on the session sends as `x-csrf-token`. */
  readonly csrf_token: string;
}
