/**
 * A request's trace: its SERVER span, which continues the client's `traceparent`, and the spans opened
 * under it (stages' I/O, upstream attempts). The span ends once the last byte is written, with what the
 * request came to: status, outcome, the GenAI attributes of the call and its cost.
 */
import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_CLIENT_ADDRESS,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
} from '@opentelemetry/semantic-conventions/incubating';
import type { JsonObject } from '../../base/json';
import type { AttemptCause, RequestTrace } from '../../request/request-trace';
import type { ServedRequest } from '../../request/served-request';
import type { ModelApi } from '../../contracts/api';
import type { RouteTarget } from '../../contracts/route';
import { startAttempt, type AttemptSink, type AttemptSpan } from './attempt-span';
import { traceparentOf } from './trace-context';
import { addCall, addUsage, requestAttributes } from './gen-ai-attributes';
import { markFailed } from './span-error';

/** The event a streamed call's first token is recorded as, at the moment it was written. */
export const FIRST_TOKEN_EVENT = 'gen_ai.first_token';

/** A request's end as a rejection sees it: before any stage ran. */
export interface RejectedEnd {
  readonly requestId: string;
  readonly status: number;
  readonly code: string;
  readonly client: string;
}

export class ServerSpan implements RequestTrace, AttemptSink {
  readonly traceId: string;
  private readonly context: Context;
  private attempts = 0;
  private reasons: string[] | undefined;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    parent: Context,
    private readonly content: boolean,
  ) {
    this.context = trace.setSpan(parent, span);
    this.traceId = span.spanContext().traceId;
  }

  get spanId(): string {
    return this.span.spanContext().spanId;
  }

  get traceparent(): string {
    return traceparentOf(this.span.spanContext());
  }

  attribute(name: string, value: string | number | boolean): void {
    this.span.setAttribute(name, value);
  }

  event(name: string, attributes: Readonly<Record<string, string | number | boolean>>): void {
    this.span.addEvent(name, attributes);
  }

  io<T>(name: string, work: () => Promise<T>): Promise<T> {
    return this.spanned(this.tracer.startSpan(name, undefined, this.context), work);
  }

  client<T>(
    name: string,
    attributes: Readonly<Record<string, string | number | boolean>>,
    work: () => Promise<T>,
  ): Promise<T> {
    return this.spanned(
      this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, this.context),
      work,
    );
  }

  private spanned<T>(span: Span, work: () => Promise<T>): Promise<T> {
    return work().then(
      (value) => (span.end(), value),
      (e: unknown) => {
        markFailed(span, e);
        span.end();
        throw e;
      },
    );
  }

  attempt(target: RouteTarget, api: ModelApi, url: URL | undefined, why: AttemptCause): AttemptSpan {
    const number = ++this.attempts;
    return startAttempt(
      this.tracer,
      this.context,
      { target, facts: api.genAi, url, number, why },
      this,
      this.content,
    );
  }

  finishReasons(reasons: readonly string[]): void {
    this.reasons = [...reasons];
  }

  /** What the client's body asks of the call (read once it is parsed). */
  requested(body: JsonObject, api: ModelApi): void {
    this.span.setAttributes(requestAttributes(body, api.genAi, this.content));
  }

  /** The request went through the pipeline and its last byte is written. */
  end(ctx: ServedRequest, status: number, costMicros: number | null): void {
    const { span } = this;
    const { endpoint, target, usage, observed } = ctx;
    span.updateName(`${ctx.req.method ?? 'HTTP'} ${endpoint.path}`);
    const out: Attributes = {
      [ATTR_HTTP_ROUTE]: endpoint.path,
      [ATTR_CLIENT_ADDRESS]: ctx.clientAddress,
      'gateway.request_id': ctx.requestId,
      'gateway.outcome': ctx.outcome,
    };
    if (ctx.key) out['gateway.key_id'] = ctx.key.id;
    if (ctx.team) out['gateway.team_id'] = ctx.team.id;
    if (target) {
      addCall(
        out,
        (endpoint.api ?? target.spec.api).genAi,
        target.spec,
        target.route.spec.id,
        target.spec.id,
      );
      out['gateway.upstream'] = target.upstream.name;
    }
    if (usage) addUsage(out, usage);
    if (costMicros !== null) out['gateway.cost_usd'] = costMicros / 1e6;
    if (this.reasons) out[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = this.reasons;
    if (ctx.stream && observed.firstByteAt > 0) {
      span.addEvent(FIRST_TOKEN_EVENT, observed.firstByteAt);
      out[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = (observed.firstByteAt - ctx.startedAt) / 1000;
    }
    this.close(out, status, observed.errorCode);
  }

  /** The request was answered before the pipeline (no route, a limit on headers, shutdown). */
  rejected(end: RejectedEnd): void {
    const out = { [ATTR_CLIENT_ADDRESS]: end.client, 'gateway.request_id': end.requestId };
    this.close(out, end.status, end.code);
  }

  /** A server span is an error for a 5xx alone: a 4xx is the client's (the HTTP conventions). */
  private close(out: Attributes, status: number, code: string | undefined): void {
    const { span } = this;
    out[ATTR_HTTP_RESPONSE_STATUS_CODE] = status;
    if (code !== undefined) out['gateway.error_code'] = code;
    if (status >= 500) {
      out[ATTR_ERROR_TYPE] = code ?? String(status);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.setAttributes(out);
    span.end();
  }
}
