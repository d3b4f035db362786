/**
 * Starts each request's SERVER span, continuing the client's W3C `traceparent` when it sent a valid one.
 * A request the sampler drops gets no trace at all (the client's `traceparent` then goes upstream as it
 * came), so a sampled-out request costs the sampler's decision and nothing more.
 */
import type { IncomingMessage } from 'node:http';
import { ROOT_CONTEXT, SpanKind, type Context } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { pathOf } from '../access-log';
import type { Tracing } from './tracer-provider';
import { ServerSpan } from './server-span';
import { remoteParent } from './trace-context';

/** The host a request named, without its port. */
const hostOf = (host: string | undefined): string => (host ?? '').replace(/:\d+$/, '');

export class RequestTracer {
  constructor(private readonly tracing: Tracing) {}

  /** The request's span, or undefined when the sampler drops it. `startedAt` is `performance.now()`. */
  start(req: IncomingMessage, startedAt: number): ServerSpan | undefined {
    const parent = this.parentOf(req);
    const method = req.method ?? 'HTTP';
    // Attributes are set once the sampler kept the span: a dropped request never builds them.
    const span = this.tracing.tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, startTime: startedAt },
      parent,
    );
    if (!span.isRecording()) return undefined;
    span.setAttributes({
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_PATH]: pathOf(req.url),
      [ATTR_URL_SCHEME]: 'http',
      [ATTR_SERVER_ADDRESS]: hostOf(req.headers.host),
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
    });
    const agent = req.headers['user-agent'];
    if (agent) span.setAttribute(ATTR_USER_AGENT_ORIGINAL, agent);
    return new ServerSpan(this.tracing.tracer, span, parent, this.tracing.captureContent);
  }

  /** The client's trace context, when it sent one the specification accepts. */
  private parentOf(req: IncomingMessage): Context {
    if (req.headers.traceparent === undefined) return ROOT_CONTEXT;
    return remoteParent(req.headers);
  }
}
