/**
 * The request path's shared types, in one home: what plugins are (pipeline stages, upstream families,
 * task upstreams), what they are given (the request's GatewayContext, its route target, the endpoint it
 * hit) and what they hand back. The modules that implement them (context.ts, http/, proxy/, routing/,
 * upstream/) import from here and this file imports none of them, so they never import each other for
 * types. How a plugin is declared and registered is define-plugin.ts.
 */
import type { Agent, IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '../base/json';
import type { KeyRecord } from '../stores/key-store';
import type { TeamRecord } from '../stores/team-store';
import type { GatewayError } from '../base/errors';
import type { SseEvent } from '../base/sse';
import type { TaskError, TaskParams, TaskUsage } from '../stores/video-task';
import type { Usage } from './usage';
import type { ModelLimits } from './model-limits';

export type Next = () => Promise<void>;

/** A typed, namespaced slot in `ctx.state` (docs/conventions.md#convention-9). */
export class StateKey<T> {
  declare private readonly type: T;
  constructor(
    readonly owner: string,
    readonly name: string,
  ) {}
}

/** How an exchange ended when it did not end cleanly; recorded with its usage. */
export type Outcome =
  'ok' | 'client_closed' | 'upstream_cut' | 'upstream_error' | 'idle_timeout' | 'shutdown' | 'key_revoked';

/**
 * The per-request state every pipeline stage sees. Fields are typed and owned: auth sets `key` and `team`,
 * model-router sets `target`, the upstream reader sets `usage`, the proxy sets `status` and `outcome`.
 * Anything a third-party middleware needs to share goes through `get`/`set` with a typed StateKey.
 */
export interface GatewayContext {
  key: KeyRecord | undefined;
  /** The key's team, when it has one. */
  team: TeamRecord | undefined;
  target: RouteTarget | undefined;
  usage: Usage | undefined;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** The status the client received; 0 until the response starts. */
  status: number;
  outcome: Outcome;
  /** How many pipeline stages the request entered; their finish phases run. */
  stagesReached: number;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly endpoint: Endpoint;
  readonly params: Readonly<Record<string, string>>;
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
  /** What was measured and decided about this request, for the access log and the metrics. */
  readonly observed: Observed;
  /** The request's trace; undefined when tracing is off or the request was not sampled. */
  readonly trace: RequestTrace | undefined;
  /** The request body, read once under the configured size and time limits. */
  rawBody(): Promise<Buffer>;
  /** The request body parsed once as a JSON object (400 otherwise); the bytes forwarded are the ones parsed. */
  json(): Promise<JsonObject>;
  get<T>(key: StateKey<T>): T | undefined;
  set<T>(key: StateKey<T>, value: T): void;
}

/**
 * What the access log and the metrics read about a request beyond the fields above. The proxy (and the
 * video submit) add the upstream's time, so a request's time splits into the gateway's own and the upstream's.
 */
export interface Observed {
  /** Time spent on upstreams, every attempt together: from sending the request to the response's last byte. */
  upstreamMs: number;
  /** `performance.now()` when the first event of a streamed body went to the client; 0 until then. */
  firstByteAt: number;
  /** Request body bytes read (0 when the body was never read). */
  bytesIn: number;
  /** The socket's `bytesWritten` when the request arrived: the response's bytes are the difference. */
  readonly writtenBefore: number;
  /** The code of the gateway's own error the client was answered with, if any. */
  errorCode: string | undefined;
}

/**
 * The request's trace (core/observability/tracing): its SERVER span, under which stages and the proxy
 * open theirs. On the context only when the request is traced, so tracing off costs one check.
 */
export interface RequestTrace {
  /** The trace's id, for the access line and the metrics' exemplars. */
  readonly traceId: string;
  /** The request's own span, for the metrics' exemplars. */
  readonly spanId: string;
  /** The request's own span as W3C `traceparent`, which a video task keeps for its later spans. */
  readonly traceparent: string;
  /** What the client's body asks of the call (its output ceiling; its prompt if content is recorded). */
  requested(body: JsonObject, api: ModelApi): void;
  /** Runs a stage's I/O (a key lookup, a Redis decision) as a child span named `name`. */
  io<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * Opens the CLIENT span of one upstream attempt, to `target` at `url` (undefined where a plugin builds
   * the URL itself, as a task submit's), in the client's `api`.
   */
  attempt(target: RouteTarget, api: ModelApi, url: URL | undefined, why: AttemptCause): AttemptTrace;
}

/** Why an upstream attempt is made: the first, or after a failure (its reason) on the same route. */
export type AttemptCause =
  { readonly kind: 'first' } | { readonly kind: 'retry' | 'fallback' | 'resend'; readonly reason: string };

/** One upstream attempt's span. */
export interface AttemptTrace {
  /** The `traceparent` the upstream gets: it names this span. */
  readonly traceparent: string;
  /** A JSON answer, or one stream event's data, as the client gets it: read for finish reasons. */
  answered(data: string): void;
  /** The attempt is over: the upstream's status (0 when none came), and why it failed, if it did. */
  end(status: number, failure: string | undefined, usage: Usage | undefined): void;
}

/** The last stage of a request: what runs after the pipeline passed it on. */
export type Handler = (ctx: GatewayContext) => Promise<void>;

/** One client-facing route. */
export interface Endpoint {
  /** Stable id, e.g. `chat-completions`; model tables refer to it. */
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Absolute path; `:name` segments are parameters (`/v1/videos/generations/:id`). */
  readonly path: string;
  /** True when the body's `model` picks the upstream (model-router resolves `ctx.target`). */
  readonly routedByModel: boolean;
  /** The client API a model-routed endpoint serves. */
  readonly api?: ModelApi;
  /** For an endpoint routed by model: whether it accepts `model` (else 404 naming the endpoints that do). */
  serves?(model: ModelSpec): boolean;
  readonly handle: Handler;
}

export interface UpstreamTimeouts {
  readonly connectMs: number;
  readonly responseMs: number;
}

/** A configured upstream as a route target holds it (upstream/upstream.ts is the implementation). */
export interface ConfiguredUpstream {
  readonly name: string;
  readonly plugin: UpstreamPlugin;
  readonly timeouts: UpstreamTimeouts;
  /** Its keep-alive sockets. */
  readonly agent: Agent;
  close(): void;
}

export interface RouteTarget {
  readonly upstream: ConfiguredUpstream;
  /** The model that serves: the route's, or (a fallback's) another model of the same API, metered as itself. */
  readonly spec: ModelSpec;
  /** The id the upstream knows the model by. */
  readonly upstreamModel: string;
  readonly weight: number;
  /** The route this target belongs to, so a failed attempt finds its next target without a lookup. */
  readonly route: RouteChoices;
}

/** The targets of one model, as the request path reads them. */
export interface RouteChoices {
  readonly spec: ModelSpec;
  readonly targets: readonly RouteTarget[];
  readonly totalWeight: number;
  /** In the order gateway.yaml lists them. */
  readonly fallbacks: readonly RouteTarget[];
}

/**
 * A pipeline stage (docs/conventions.md#convention-5). `handle` runs in gateway.yaml order, onion style; `onEvent`
 * sees every streamed event after the upstream plugin; `finish` runs once after the last byte (or after
 * an error response), for every stage whose `handle` was reached, and must not throw.
 */
export interface Middleware {
  handle?(ctx: GatewayContext, next: Next): Promise<void>;
  onEvent?(ctx: GatewayContext, ev: SseEvent): SseEvent | null;
  finish?(ctx: GatewayContext): void;
}

/** The frames the gateway itself writes into a stream of a given API. */
export interface StreamDialect {
  /** A keep-alive frame, sent while the upstream is silent. */
  readonly ping: string;
  /** The frame that ends a failed stream, so a client never mistakes a cut for a clean end. */
  errorFrame(error: GatewayError): string;
}

/**
 * What OpenTelemetry's GenAI conventions record of an API's calls, and where its bodies say it. Bodies are
 * read as the client sends and gets them, in the client's API, whichever API the upstream speaks.
 */
export interface GenAiFacts {
  /** `gen_ai.operation.name`: `chat`, `embeddings`, `generate_content`, … */
  readonly operation: string;
  /** Request fields capping the output (`gen_ai.request.max_tokens`); the first present counts. */
  readonly maxTokens?: readonly string[];
  /** The request field holding the prompt, recorded only when the operator opts in to content. */
  readonly input?: string;
  /** The answer's field holding the output, recorded only when the operator opts in to content. */
  readonly output?: string;
  /** Where the answer states its finish reasons (`gen_ai.response.finish_reasons`). */
  readonly finishReasons?: FinishReasons;
}

export interface FinishReasons {
  /** Matches every JSON answer or stream event that states them: no other is parsed. */
  readonly marker: RegExp;
  /** The reasons `answer` (a JSON answer, or an event's data) states; undefined when it states none. */
  read(answer: JsonObject): readonly string[] | undefined;
}

/** A client-facing API whose upstream is chosen by the body's `model` (e.g. chat completions). */
export interface ModelApi {
  readonly id: string;
  readonly method: 'POST';
  readonly path: string;
  readonly dialect: StreamDialect;
  readonly genAi: GenAiFacts;
  /**
   * `task` for an asynchronous task API (video): its endpoints come from the task protocol plugins and
   * its upstream plugins provide `tasks`. Absent for a request/response API, which the proxy forwards.
   */
  readonly kind?: 'task';
}

/** One model an upstream plugin serves. */
export interface ModelSpec {
  readonly id: string;
  readonly api: ModelApi;
  /** Unix seconds, for `GET /v1/models`. */
  readonly created: number;
  readonly ownedBy: string;
  /**
   * Consumption ceilings. A plugin declares its vendor's documented limits; the catalogue hands the
   * plugin back specs whose limits include gateway.yaml's `limits:`.
   */
  readonly limits?: ModelLimits;
  /**
   * Other client APIs the family's `prepare` takes for this model as they are (the vendor serves them
   * too), e.g. OpenAI's Responses API beside its chat completions. `prepare` reads `ctx.endpoint` to know
   * which was asked. A native API wins over a translation.
   */
  readonly alsoServes?: readonly ModelApi[];
}

/**
 * Serves a client API on the models of another, as one translator per pair of schemas (Responses on a
 * chat-completions model, say): the client's body is translated to the model's API and handed to the
 * model's own family, whose reader is wrapped so the client gets its own API's answers. Core knows no
 * API or vendor here; translators are plugins (plugins/translators/).
 */
export interface ApiTranslator {
  /** The API the client speaks. */
  readonly from: ModelApi;
  /** The API of the models it serves it on. */
  readonly to: ModelApi;
  /**
   * The client's body in the model's API, for `model`. Throws a 400 GatewayError naming a field the
   * target cannot honour: never a silent drop.
   */
  request(body: JsonObject, model: ModelSpec): JsonObject;
  /** The client's reader, around `inner`, the family's reader of the answer in the model's API. */
  reader(inner: ResponseReader, body: JsonObject, model: ModelSpec): TranslatingReader;
  /**
   * A family's refusal (a 400 naming a field of the model's API) as the client's API names that field;
   * absent, the message goes as the family wrote it.
   */
  clientMessage?(message: string): string;
  /**
   * Request headers the model's API requires of its clients (a version header), which a client of the
   * other API does not send: the family sees the translated request with these set.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What the client gets for one upstream event: that event (possibly changed), none, or several. */
export type ClientEvents = SseEvent | readonly SseEvent[] | null;

/** An upstream's error answer (status ≥ 400), as the error-body hook sees it. */
export interface VendorError {
  readonly status: number;
  /** The body as the vendor sent it. */
  readonly body: Buffer;
  /** The body parsed, when it is a JSON object. */
  readonly json: JsonObject | undefined;
}

/**
 * How a reader skims a stream: most of its events are generated text only the client needs, and need
 * not be parsed. `reads` tells from an event's raw text whether the reader must read it (its end, an
 * error, usage); an event it passes goes to the client as the upstream wrote it, and to `passed` instead
 * of `event`. While a pipeline stage hooks events, or the request is traced, every event is parsed and
 * read as without a skim.
 */
export interface StreamSkim {
  /**
   * `frame`: one whole event's bytes read as latin1, a character per byte (search it for ASCII only),
   * field names and blank line included. Saying yes to an event the reader does not need costs only its
   * parse; saying no to one it needs loses it.
   */
  reads(frame: string): boolean;
  /** Whole events passed unread, in order, as the upstream's bytes: for an estimate read only if needed. */
  passed(frames: Buffer): void;
}

/**
 * What a reader does whether or not it translates. Created per request by the upstream plugin, so it
 * may keep per-stream state (what was delivered, whether the protocol's end was seen).
 */
interface ReaderBase {
  /**
   * Sees each upstream event; returns what the client gets for it: the event itself (possibly changed),
   * null to drop it, or several events, so a translating family can turn a vendor's end event into the
   * client API's finish chunk, usage chunk and end marker.
   */
  event(ev: SseEvent): ClientEvents;
  /**
   * The client's body for an upstream error answer, or undefined to pass the vendor's bytes on. Absent,
   * the gateway's default applies (`contractErrorBody` in the kit): a body the client's SDK can read
   * passes through, any other becomes the contract's error shape keeping the vendor's message and code.
   */
  errorBody?(answer: VendorError): JsonObject | undefined;
  /**
   * The frames that end this stream when the gateway cuts it (upstream cut, idle, shutdown), where they
   * depend on the stream so far (a numbered event, a failed-response event); absent, the API's own
   * `StreamDialect.errorFrame`.
   */
  errorFrame?(error: GatewayError): string;
  /** Which stream events this reader must read; absent, every event goes to `event`. */
  readonly skim?: StreamSkim;
  /** True once the protocol's own end of stream arrived (`[DONE]`, `message_stop`). */
  readonly complete: boolean;
  /** True when the upstream sent an error inside the stream (it was relayed to the client). */
  readonly failed: boolean;
  /** Usage so far: the upstream's figures, or an estimate from what was delivered. */
  usage(): Usage;
}

/**
 * The reader of a family whose vendor speaks the client's API: the vendor's body goes to the client,
 * changed only where `json` says.
 */
export interface RelayingReader extends ReaderBase {
  readonly translates?: false;
  /** Usage of a complete JSON response; `replace` is a new body when the plugin had to change it. */
  json(body: JsonObject): { usage: Usage; replace?: JsonObject };
  /**
   * Usage of a JSON response from its top-level `usage` object alone, where that member decides it;
   * undefined sends the whole body to `json`. With it the proxy parses only that member of the body,
   * and the vendor's bytes go to the client as they are.
   */
  usageMember?(usage: JsonObject): Usage | undefined;
}

/**
 * The reader of a family whose vendor speaks another API than the client's: every JSON body is parsed
 * whole and replaced by its translation (there is no `usageMember` shortcut that would let the vendor's
 * body through).
 */
export interface TranslatingReader extends ReaderBase {
  readonly translates: true;
  /** Usage of a complete JSON response and the client's body for it. */
  json(body: JsonObject): { usage: Usage; replace: JsonObject };
}

/** Reads one upstream response for usage, and translates it where the family's vendor speaks another API. */
export type ResponseReader = RelayingReader | TranslatingReader;

/** What an upstream plugin asks the proxy to send. */
export interface UpstreamRequest {
  readonly url: URL;
  /** The upstream's credential and any headers it needs; they replace the client's of the same name. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body to send: the client's own bytes when nothing changed. */
  readonly body: Buffer;
  readonly reader: ResponseReader;
  /** Headers the gateway adds to the client's response, e.g. a deprecation warning about the request. */
  readonly responseHeaders?: Readonly<Record<string, string>>;
}

/**
 * A family of upstreams that speak one protocol. One instance per `upstreams:` entry in gateway.yaml.
 * A request/response family implements `prepare`; a task family (video) provides `tasks`.
 */
export interface UpstreamPlugin {
  readonly models: readonly ModelSpec[];
  /**
   * Validates the client's request for `model` (throwing a 400 GatewayError naming the field) and maps it
   * for the upstream, which knows the model as `upstreamModel`.
   */
  prepare?(ctx: GatewayContext, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest>;
  readonly tasks?: TaskUpstream;
}

/** How often and how hard the poller may ask one upstream about its tasks. Durations in ms. */
export interface PollPolicy {
  /** The first interval between polls of a task; later ones back off by half again, up to `maxEveryMs`. */
  readonly everyMs: number;
  readonly maxEveryMs: number;
  /** A task not finished this long after submit fails with `deadline_exceeded`. */
  readonly deadlineMs: number;
  /** Polls in flight at once to this upstream, per gateway instance. */
  readonly concurrency: number;
  /** Polls started per second to this upstream, per gateway instance; 0 for no limit. */
  readonly perSecond: number;
}

/** The upstream's answer to a submit: the task it accepted, or its refusal, passed on to the client. */
export type SubmitOutcome =
  | { readonly accepted: true; readonly upstreamTaskId: string }
  | {
      readonly accepted: false;
      readonly status: number;
      readonly contentType: string;
      readonly body: Buffer;
    };

/**
 * What one poll learnt. `unknown` (the upstream does not know the task, or answered in a way that
 * settles nothing) is not a failure: the task is polled again until its deadline.
 */
export type PollOutcome =
  | { readonly state: 'queued' | 'running' | 'unknown' }
  | { readonly state: 'succeeded'; readonly videoUrl: string; readonly usage: TaskUsage }
  | { readonly state: 'failed' | 'cancelled'; readonly error: TaskError };

/** A task upstream: checks the native body, submits it, and reads the upstream task's state. */
export interface TaskUpstream {
  readonly polling: PollPolicy;
  /** Checks what the gateway needs from the native body (400 naming the field); returns the billing facts. */
  check(body: JsonObject, model: ModelSpec): TaskParams;
  /**
   * The most a task with these parameters can produce, priced to hold a key's budget while it runs: the
   * duration asked (or the model's ceiling), the resolution asked (or the largest), and for families
   * billed in tokens the tokens that makes.
   */
  estimate(params: TaskParams, model: ModelSpec): TaskUsage;
  /**
   * Sends the client's body (renamed to `upstreamModel` if the route says so). Throws 502/504 on transport
   * failure. `traceparent`, when the submit is traced, names its span: send it as the header.
   */
  submit(
    body: JsonObject,
    raw: Buffer,
    upstreamModel: string,
    requestId: string,
    traceparent?: string,
  ): Promise<SubmitOutcome>;
  /**
   * Reads the upstream task once. Throws on a transient failure (transport, 5xx, 429). `requestId` is the
   * submit's, to send as `x-request-id`; `traceparent`, when the poll is traced, names its span.
   */
  poll(upstreamTaskId: string, requestId?: string, traceparent?: string): Promise<PollOutcome>;
}
