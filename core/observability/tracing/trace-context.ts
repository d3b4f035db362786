/**
 * W3C Trace Context in and out: the parent a `traceparent` names (a client's, or the one a video task
 * kept), read by OpenTelemetry's propagator, and the `traceparent` that names a span of ours.
 */
import { defaultTextMapGetter, ROOT_CONTEXT, type Context, type SpanContext } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const propagator = new W3CTraceContextPropagator();

/** The remote parent `carrier`'s `traceparent` (and `tracestate`) name; the root context when invalid. */
export const remoteParent = (carrier: Readonly<Record<string, unknown>>): Context =>
  propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);

/**
 * A span's `traceparent` (version 00). Written here rather than by the propagator's `inject`, which goes
 * through a context and a carrier object on every attempt to make the same string.
 */
export const traceparentOf = ({ traceId, spanId, traceFlags }: SpanContext): string =>
  `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
