/**
 * Tracing as a gateway runs it: the tracer the settings ask for, the request spans' starter and the
 * video tasks' spans. The composition root loads this module only when an endpoint is named.
 */
import type { TracingConfig } from '../../../config/schema';
import { RequestTracer } from './request-tracer';
import { TaskSpans } from './task-spans';
import { startTracing } from './tracer-provider';
import { tracingSettings } from './tracing-settings';

export interface GatewayTracing {
  readonly requests: RequestTracer;
  readonly tasks: TaskSpans;
  /** Sends what is still queued (within the batch's export timeout), then stops. */
  shutdown(): Promise<void>;
}

/** Undefined when the settings turn tracing off after all (OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none). */
export function startGatewayTracing(section: TracingConfig): GatewayTracing | undefined {
  const settings = tracingSettings(section);
  if (!settings) return undefined;
  const tracing = startTracing(settings);
  return {
    requests: new RequestTracer(tracing),
    tasks: new TaskSpans(tracing.tracer),
    shutdown: () => tracing.shutdown(),
  };
}
