/**
 * One upstream attempt as a CLIENT span: named as the GenAI conventions name a call (`chat modela-5.5`),
 * numbered within its request, with why it was made. Its own span id goes upstream in `traceparent`.
 */
import {
  defaultTextMapSetter,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
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
import type { AttemptCause, AttemptTrace, GenAiFacts, RouteTarget } from '../../contracts/plugin';
import type { Usage } from '../../contracts/usage';
import { isJsonObject } from '../../base/json';
import { modelAttributes, operationAttributes, usageAttributes } from './gen-ai-attributes';

const propagator = new W3CTraceContextPropagator();

/** What the request's span keeps of its attempts: the finish reasons of the one the client got. */
export interface AttemptSink {
  finishReasons(reasons: readonly string[]): void;
}

const defaultPort = (url: URL): number => (url.protocol === 'https:' ? 443 : 80);

const urlAttributes = (url: URL): Attributes => ({
  // The origin and path only: a query may carry a credential some vendors take there.
  [ATTR_URL_FULL]: `${url.origin}${url.pathname}`,
  [ATTR_SERVER_ADDRESS]: url.hostname,
  [ATTR_SERVER_PORT]: url.port ? Number(url.port) : defaultPort(url),
});

/** Opens the span of attempt `number` of a request, under `parent` (the request's span). */
export function startAttempt(
  tracer: Tracer,
  parent: Context,
  attempt: {
    target: RouteTarget;
    facts: GenAiFacts;
    url: URL | undefined;
    number: number;
    why: AttemptCause;
  },
  sink: AttemptSink,
  content: boolean,
): AttemptSpan {
  const { target, facts, url, number, why } = attempt;
  const span = tracer.startSpan(
    `${facts.operation} ${target.upstreamModel}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        ...operationAttributes(facts, target.spec),
        ...modelAttributes(target.upstreamModel, target.upstreamModel),
        [ATTR_HTTP_REQUEST_METHOD]: 'POST',
        ...(url ? urlAttributes(url) : {}),
        'gateway.upstream': target.upstream.name,
        'gateway.model': target.spec.id,
        'gateway.attempt': number,
        'gateway.attempt.kind': why.kind,
        ...(why.kind === 'first' ? {} : { 'gateway.attempt.reason': why.reason }),
      },
    },
    parent,
  );
  return new AttemptSpan(span, traceparentOf(trace.setSpan(parent, span)), facts, sink, content);
}

/** The `traceparent` naming the span of `context`, as W3C Trace Context writes it. */
export function traceparentOf(context: Context): string {
  const carrier: Record<string, string> = {};
  propagator.inject(context, carrier, defaultTextMapSetter);
  return carrier.traceparent ?? '';
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
    if (status > 0) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (failure !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, status > 0 ? String(status) : failure);
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    } else {
      if (usage) span.setAttributes(usageAttributes(usage));
      if (this.reasons) {
        span.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, this.reasons);
        this.sink.finishReasons(this.reasons);
      }
    }
    span.end();
  }
}
