/**
 * The gateway's tracer: OpenTelemetry's SDK with its OTLP/HTTP exporter (protobuf or JSON), a batch span
 * processor and the sampler the settings name. Nothing is registered globally: spans are given their
 * parent explicitly, so several gateways in one process (the tests) keep their traces apart.
 */
import type { Tracer } from '@opentelemetry/api';
import type { SamplerConfigModel } from '@opentelemetry/configuration';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { TraceProtocol, TracingSettings } from './tracing-settings';

/** The instrumentation scope every span of the gateway names. */
const SCOPE = 'model-gateway';

export interface Tracing {
  readonly tracer: Tracer;
  readonly captureContent: boolean;
  /** Sends what is still queued (within the batch's export timeout), then stops. */
  shutdown(): Promise<void>;
}

type ExporterConfig = { url: string; headers: Record<string, string>; timeoutMillis: number };

const EXPORTERS: Readonly<Record<TraceProtocol, new (config: ExporterConfig) => SpanExporter>> = {
  'http/protobuf': ProtobufExporter,
  'http/json': JsonExporter,
};

/**
 * The SDK's sampler for the configuration model's, by which kind the model holds (its value may be
 * null: the model marks a kind by its presence). Only these kinds come out of tracing-settings.ts.
 */
const SAMPLERS: readonly (readonly [keyof SamplerConfigModel, (model: SamplerConfigModel) => Sampler])[] = [
  ['always_on', () => new AlwaysOnSampler()],
  ['always_off', () => new AlwaysOffSampler()],
  ['trace_id_ratio_based', (m) => new TraceIdRatioBasedSampler(m.trace_id_ratio_based?.ratio ?? 1)],
  ['parent_based', (m) => new ParentBasedSampler({ root: samplerOf(m.parent_based?.root ?? {}) })],
];

export function samplerOf(model: SamplerConfigModel): Sampler {
  const kind = SAMPLERS.find(([name]) => name in model);
  return kind ? kind[1](model) : new AlwaysOnSampler();
}

export function startTracing(settings: TracingSettings): Tracing {
  const exporter = new EXPORTERS[settings.protocol]({
    url: settings.url,
    headers: { ...settings.headers },
    timeoutMillis: settings.timeoutMs,
  });
  const { batch } = settings;
  const provider = new TracerProvider({
    resource: resourceFromAttributes(settings.resource),
    sampler: samplerOf(settings.sampler),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: batch.scheduleDelayMs,
        exportTimeoutMillis: batch.exportTimeoutMs,
        maxQueueSize: batch.maxQueueSize,
        maxExportBatchSize: batch.maxExportBatchSize,
      }),
    ],
  });
  return {
    tracer: provider.getTracer(SCOPE),
    captureContent: settings.captureContent,
    shutdown: () => provider.shutdown(),
  };
}
