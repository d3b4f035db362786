/**
 * One upstream attempt as a CLIENT span: named as the GenAI conventions name a call (`chat modela-5.5`),
 * numbered within its request, with why it was made. Its own span id goes upstream in `traceparent`.
 */
import {
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
} from '@opentelemetry/semantic-conventions/incubating';
import type { AttemptCause, AttemptTrace } from '../../request/request-trace';
import type { GenAiFacts } from '../../contracts/api';
import type { RouteTarget } from '../../contracts/route';
import type { Usage } from '../../contracts/usage';
import { isJsonObject } from '../../base/json';
import { addCall, addUsage } from './gen-ai-attributes';
import { traceparentOf } from './trace-context';

/** What the request's span keeps of its attempts: the finish reasons of the one the client got. */
export interface AttemptSink {
  finishReasons(reasons: readonly string[]): void;
}

/** What one attempt is, as its span is opened. */
export interface Attempt {
  readonly target: RouteTarget;
  readonly facts: GenAiFacts;
  /** Undefined where a plugin builds the URL itself (a task submit). */
  readonly url: URL | undefined;
  readonly number: number;
  readonly why: AttemptCause;
}

const defaultPort = (url: URL): number => (url.protocol === 'https:' ? 443 : 80);

function attemptAttributes({ target, facts, url, number, why }: Attempt): Attributes {
  const out: Attributes = {};
  addCall(out, facts, target.spec, target.upstreamModel, target.upstreamModel);
  out[ATTR_HTTP_REQUEST_METHOD] = 'POST';
  if (url) {
    // The origin and path only: a query may carry a credential some vendors take there.
    out[ATTR_URL_FULL] = url.origin + url.pathname;
    out[ATTR_SERVER_ADDRESS] = url.hostname;
    out[ATTR_SERVER_PORT] = url.port ? Number(url.port) : defaultPort(url);
  }
  out['gateway.upstream'] = target.upstream.name;
  out['gateway.model'] = target.spec.id;
  out['gateway.attempt'] = number;
  out['gateway.attempt.kind'] = why.kind;
  if (why.kind !== 'first') out['gateway.attempt.reason'] = why.reason;
  return out;
}

/** Opens the span of an attempt under `parent` (the request's span). */
export function startAttempt(
  tracer: Tracer,
  parent: Context,
  attempt: Attempt,
  sink: AttemptSink,
  content: boolean,
): AttemptSpan {
  const name = `${attempt.facts.operation} ${attempt.target.upstreamModel}`;
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT }, parent);
  span.setAttributes(attemptAttributes(attempt));
  return new AttemptSpan(span, traceparentOf(span.spanContext()), attempt.facts, sink, content);
}

export class AttemptSpan implements AttemptTrace {
  private reasons: string[] | undefined;

  constructor(
    private readonly span: Span,
    readonly traceparent: string,
    private readonly facts: GenAiFacts,
    private readonly sink: AttemptSink,
    private readonly content: boolean,
  ) {}

  answered(data: string): void {
    const { finishReasons, output } = this.facts;
    const wanted = finishReasons?.marker.test(data);
    if (!wanted && !(this.content && output)) return;
    let answer: unknown;
    try {
      answer = JSON.parse(data);
    } catch {
      return; // not JSON: nothing to read
    }
    if (!isJsonObject(answer)) return;
    if (this.content && output && answer[output] !== undefined)
      this.span.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, JSON.stringify(answer[output]));
    const reasons = wanted ? finishReasons?.read(answer) : undefined;
    if (reasons) (this.reasons ??= []).push(...reasons);
  }

  end(status: number, failure: string | undefined, usage: Usage | undefined): void {
    const { span } = this;
    const out: Attributes = {};
    if (status > 0) out[ATTR_HTTP_RESPONSE_STATUS_CODE] = status;
    if (failure !== undefined) {
      out[ATTR_ERROR_TYPE] = status > 0 ? String(status) : failure;
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    } else {
      if (usage) addUsage(out, usage);
      if (this.reasons) {
        out[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = this.reasons;
        this.sink.finishReasons(this.reasons);
      }
    }
    span.setAttributes(out);
    span.end();
  }
}
