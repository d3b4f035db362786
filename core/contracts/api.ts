/**
 * What a client-facing API is, as plugins declare it (plugins/apis/), and the models upstream families
 * serve on it.
 */
import type { GatewayError } from '../base/errors';
import type { JsonObject } from '../base/json';
import type { ModelLimits } from './model-limits';

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
  /**
   * What opens the conversation a request continues (its system prompt and first user turn), as the
   * client sent it: the part a vendor's prompt cache keeps, and what session affinity `by: prefix` keys
   * a session by. Undefined when the body has neither. Absent on an API without conversations.
   */
  conversationStart?(body: JsonObject): unknown;
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

/** The client-facing route a request came in on. */
export interface EndpointInfo {
  /** Stable id, e.g. `chat-completions`; model tables refer to it. */
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Absolute path; `:name` segments are parameters (`/v1/videos/generations/:id`). */
  readonly path: string;
  /** True when the body's `model` picks the upstream (model-router resolves `ctx.target`). */
  readonly routedByModel: boolean;
  /** The client API a model-routed endpoint serves. */
  readonly api?: ModelApi;
  /**
   * False where the rate limits do not count the endpoint's requests (a service's long-lived stream);
   * absent or true: every request counts.
   */
  readonly rateLimited?: boolean;
  /** The largest body the endpoint takes, in bytes, where it is not `server.body_limit` (a file upload). */
  readonly bodyLimit?: number;
  /** For an endpoint routed by model: whether it accepts `model` (else 404 naming the endpoints that do). */
  serves?(model: ModelSpec): boolean;
}
