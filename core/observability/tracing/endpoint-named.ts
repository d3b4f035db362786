/**
 * Whether an OTLP traces endpoint is named at all, read without OpenTelemetry's packages: without one
 * tracing is off, and the composition root never loads the SDK (gateway-tracing.ts), so a gateway
 * that does not trace carries none of it.
 */
import type { TracingConfig } from '../../../config/schema';

/** The specification's variables naming where traces go: the traces' own, then the generic one. */
export const ENDPOINT_VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'];

export const endpointVariableSet = (): boolean =>
  ENDPOINT_VARIABLES.some((name) => process.env[name]?.trim());

export const endpointNamed = (section: TracingConfig): boolean =>
  section.endpoint !== undefined || endpointVariableSet();
