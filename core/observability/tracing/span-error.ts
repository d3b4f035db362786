import { SpanStatusCode, type Span } from '@opentelemetry/api';

/** Marks `span` failed with what was thrown. */
export function markFailed(span: Span, error: unknown): void {
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
