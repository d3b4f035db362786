/**
 * What a rate limiter decides, whatever keeps its counts (this process, or Redis for every instance).
 * One `admit` per request checks all of its limits at once and counts it against all of them only when
 * every one admits it, so a request refused by a model's cap does not use up its key's allowance.
 *
 * Requests and tokens are counted in sliding-window logs: each admitted request (or each call's real
 * tokens) is an entry with its time, and a limit holds when the entries of the last `windowMs` are under
 * it. That makes "at most N in any window" exact, with no doubled burst at a window boundary (a fixed
 * window allows N at its end and N more at the next one's start). GCRA would keep one number per
 * subject, but with a burst of N it admits close to 2N in some windows; a log's cost is one entry per
 * admitted request, bounded by the limit.
 */
export type LimitKind = 'requests' | 'tokens' | 'concurrent';

/** One limit that applies to a request. */
export interface LimitRule {
  /** Whose limit: `key:sk-AbCd1234`, `model:modela-5.5`, `upstream:modela-main`. */
  readonly subject: string;
  readonly kind: LimitKind;
  /** Requests or tokens per window, or requests in flight at once. */
  readonly limit: number;
}

/** An admitted request: settled once it ends. */
export interface Admission {
  /** Unique per admission (never the client's request id, which a client may repeat). */
  readonly id: string;
  readonly rules: readonly LimitRule[];
}

/** Where a subject stands against one request or token limit once the decision is taken. */
export interface Standing {
  readonly limit: number;
  /** Requests or tokens the window still has room for. */
  readonly remaining: number;
  /** Until the window is back to its initial state: every entry in it now has left it. */
  readonly resetMs: number;
}

/**
 * The standing of the binding request limit and token limit (the one with the fewest remaining, of the
 * key's, the model's and the upstream's), as OpenAI's `x-ratelimit-*` headers report them; absent where
 * no limit of that kind applies.
 */
export interface Quota {
  requests?: Standing;
  tokens?: Standing;
}

export type Decision =
  | { readonly admitted: true; readonly admission: Admission; readonly quota: Quota }
  /** `retryAfterMs`: when the refusing limits will all admit a request again (for the rule that waits longest). */
  | {
      readonly admitted: false;
      readonly retryAfterMs: number;
      readonly rule: LimitRule;
      readonly quota: Quota;
    };

export interface Limiter {
  /** A limiter that decides in memory answers at once: no promise and no microtask on the request path. */
  admit(rules: readonly LimitRule[]): Decision | Promise<Decision>;
  /**
   * After the call: its real tokens enter the token windows and its concurrency leases are freed. Never
   * throws; like `admit`, a limiter that keeps its counts in memory settles at once, without a promise.
   */
  settle(admission: Admission, tokens: number): void | Promise<void>;
}

export interface LimiterTiming {
  /** The window requests and tokens are counted in (one minute outside tests). */
  readonly windowMs: number;
  /** How long a concurrency lease lives unless renewed (Redis: an instance that dies frees its slots after this). */
  readonly leaseMs: number;
}
