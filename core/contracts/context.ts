/**
 * What a plugin is given of a request: its facts, the fields stages fill in, typed state slots, and the
 * ways a stage changes or answers it. The connection itself (`req`, `res`) and what the gateway measures
 * of the request stay in core (core/request/served-request.ts).
 */
import type { JsonObject } from '../base/json';
import type { SseEvent } from '../base/sse';
import type { KeyRecord } from '../stores/key-store';
import type { TeamRecord } from '../stores/team-store';
import type { FamilyRequest } from './family-request';
import type { StateKey } from './state-key';
import type { RouteTarget } from './route';
import type { Usage } from './usage';

/**
 * How a call ended, the same in its usage record, access line, metrics and span (docs/operations.md):
 * - `ok`: a successful answer (2xx), or a stream that reached its protocol's end;
 * - `vendor_error`: the upstream answered with an error (status ≥ 400, or an error inside its stream), relayed;
 * - `refused`: the gateway's own refusal (a 4xx or 503 of its own: auth, limits, a bad request, a stage's
 *   refusal), or a stage that ended a stream early;
 * - `upstream_error`: no usable answer from the upstream (unreachable, timed out, broken: the gateway's 502/504);
 * - `gateway_error`: the gateway itself failed (500);
 * - `client_closed`: the client left before the answer was complete;
 * - `upstream_cut`, `idle_timeout`: the upstream's stream broke off, or went silent too long;
 * - `shutdown`, `key_revoked`: the gateway ended the stream (stopping; the key was revoked).
 */
export type Outcome =
  | 'ok'
  | 'vendor_error'
  | 'refused'
  | 'upstream_error'
  | 'gateway_error'
  | 'client_closed'
  | 'upstream_cut'
  | 'idle_timeout'
  | 'shutdown'
  | 'key_revoked';

/** The request's trace as a stage uses it, when the request is traced (`traced` in the kit). */
export interface StageTrace {
  /** The trace's id. */
  readonly traceId: string;
  /** Runs a stage's I/O (a key lookup, a Redis decision) as a child span named `name`. */
  io<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * Runs a call the plugin makes to an upstream of its own (an MCP server's tool) as a CLIENT span with
   * `attributes`; a failure marks the span.
   */
  client<T>(
    name: string,
    attributes: Readonly<Record<string, string | number | boolean>>,
    work: () => Promise<T>,
  ): Promise<T>;
  /** Sets an attribute of the request's span (`gateway.cache: hit`). */
  attribute(name: string, value: string | number | boolean): void;
  /** Adds an event to the request's span (a guardrail's action), at this moment. */
  event(name: string, attributes: Readonly<Record<string, string | number | boolean>>): void;
}

/**
 * What a guardrail did to a call: blocked it, masked text in it, only logged a match, or could not check
 * it (`error`: a webhook that failed, whether the call then went on or was refused). Never the text it
 * matched.
 */
export interface GuardrailAction {
  /** The rule's or webhook's name in gateway.yaml. */
  readonly name: string;
  readonly action: 'block' | 'mask' | 'log' | 'error';
  /** Whether it acted on the client's request or on the answer. */
  readonly phase: 'request' | 'response';
}

/**
 * A stage's own answer to a request, in the client's API: the upstream is not called. A JSON answer
 * (`status` 200 unless given), or for a client that asked for a stream, the events of one. With `usage`
 * the call is metered and billed as that usage; without it no usage record is written.
 */
export type StageAnswer = (
  | {
      /** The body, or its bytes already serialised (a stored answer: written as they are, parsed only if a stage asks). */
      readonly json: JsonObject | Buffer;
      readonly status?: number;
    }
  | { readonly events: readonly SseEvent[] }
) & {
  readonly headers?: Readonly<Record<string, string>>;
  readonly usage?: Usage;
  /**
   * The answer repeats an earlier call's (a cache's hit), and `usage` is that call's: it is recorded at no
   * cost with what it saved, and token rates and budgets are not charged.
   */
  readonly replayed?: boolean;
};

/**
 * The per-request state every plugin sees. Fields are typed and owned: auth sets `key` and `team`,
 * model-router sets `target` and `stream`, the upstream reader's figures become `usage`, core sets
 * `status` and `outcome`. Anything else a stage shares goes through `get`/`set` with a typed StateKey.
 */
export interface GatewayContext extends FamilyRequest {
  key: KeyRecord | undefined;
  /** The key's team, when it has one. */
  team: TeamRecord | undefined;
  target: RouteTarget | undefined;
  /** What the call used: the upstream's figures, or a stage's answer's. */
  usage: Usage | undefined;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** The status the client received; 0 until the response starts. */
  readonly status: number;
  readonly outcome: Outcome;
  /** The stage that answered the request itself (`answer`), if one did. */
  readonly answeredBy: string | undefined;
  /** Whether that answer repeats an earlier call's (StageAnswer.replayed): the call costs nothing. */
  readonly replayed: boolean;
  readonly params: Readonly<Record<string, string>>;
  /** `performance.now()` when the request arrived. */
  readonly startedAt: number;
  /**
   * Headers every answer to this request carries, whoever writes it: relayed, the gateway's own JSON, or
   * an error (the rate-limit stage's `x-ratelimit-*`). Merged into each answer's own headers rather than
   * set on the response, which would put every header of the answer through Node's slower merge.
   */
  replyHeaders: Record<string, string> | undefined;
  /** The client's address: the connection's peer, or the one a trusted balancer named (core/http/client-address.ts). */
  readonly clientAddress: string;
  /** The address upstreams are told in a fresh `X-Forwarded-For`; undefined unless the operator turned that on. */
  readonly forwardedFor: string | undefined;
  /** The request's trace; undefined when tracing is off or the request was not sampled. */
  readonly trace: StageTrace | undefined;
  /**
   * Replaces the client's body for everything after this stage: routing (when before model-router), the
   * upstream family, and what is forwarded. `json()` then returns `body`.
   */
  rewrite(body: JsonObject): void;
  /**
   * Answers the request from this stage: call it from `handle` and return without calling `next`. The
   * answer passes through the response or events phases of the stages before this one, and the call
   * still gets its access line, metrics and trace. To refuse a request, throw a GatewayError (`Errors`).
   */
  answer(reply: StageAnswer): void;
  /**
   * Validates the request as its upstream family will when called (a 400 naming the field), without
   * calling it. A stage answering in the upstream's stead (a cache's hit) calls it first: a request the
   * upstream would refuse never gets an answer.
   */
  check(): Promise<void>;
  set<T>(key: StateKey<T>, value: T): void;
  /**
   * Records what a guardrail did: the call's usage record, access line and span carry it (`guardrails`).
   * The same name and action in the same phase is recorded once: false when it already was.
   */
  guardrail(action: GuardrailAction): boolean;
  /** The guardrails' actions so far, in order; undefined when none acted. */
  readonly guardrails: readonly GuardrailAction[] | undefined;
}
