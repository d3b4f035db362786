/**
 * Where traces go and which are kept: the `tracing:` section of gateway.yaml over the standard OTEL_*
 * variables. The variables are read by OpenTelemetry's own configuration package, so each one means
 * what the specification says (a signal's endpoint is used as it is, the generic one gets `/v1/traces`;
 * headers and resource attributes as `k=v` lists; the batch processor's defaults). A field the section
 * sets wins over its variable, as code-given options win over the environment in OpenTelemetry's SDKs.
 *
 * Tracing is off (undefined) without an endpoint in either, with OTEL_SDK_DISABLED=true, or with
 * OTEL_TRACES_EXPORTER=none. OTEL_TRACES_EXPORTER left unset means `otlp`, its specified default.
 */
import type { AttributeValue } from '@opentelemetry/api';
import {
  createConfigFactory,
  mergeHeadersConfig,
  type BatchSpanProcessorConfigModel,
  type ConfigurationModel,
  type SamplerConfigModel,
} from '@opentelemetry/configuration';
import type { TracingConfig } from '../../../config/schema';
import { endpointVariableSet } from './endpoint-named';

export type TraceProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  /** The OTLP/HTTP traces URL. */
  readonly url: string;
  readonly protocol: TraceProtocol;
  readonly headers: Readonly<Record<string, string>>;
  /** One export's limit. */
  readonly timeoutMs: number;
  /** As OpenTelemetry's configuration model states it (tracer-provider.ts builds the SDK's sampler). */
  readonly sampler: SamplerConfigModel;
  readonly batch: {
    readonly scheduleDelayMs: number;
    readonly exportTimeoutMs: number;
    readonly maxQueueSize: number;
    readonly maxExportBatchSize: number;
  };
  /** The resource's attributes: service.name and OTEL_RESOURCE_ATTRIBUTES, then the section's. */
  readonly resource: Readonly<Record<string, AttributeValue>>;
  /** Whether prompt and completion text may be recorded (off unless the operator opts in). */
  readonly captureContent: boolean;
}

/** The yaml's sampler names, as the configuration model states each. */
const SAMPLERS: Readonly<
  Record<NonNullable<TracingConfig['sampler']>, (ratio: number) => SamplerConfigModel>
> = {
  always_on: () => ({ always_on: {} }),
  always_off: () => ({ always_off: {} }),
  traceidratio: (ratio) => ({ trace_id_ratio_based: { ratio } }),
  parentbased_always_on: () => ({ parent_based: { root: { always_on: {} } } }),
  parentbased_always_off: () => ({ parent_based: { root: { always_off: {} } } }),
  parentbased_traceidratio: (ratio) => ({ parent_based: { root: { trace_id_ratio_based: { ratio } } } }),
};

/** Without OTEL_SERVICE_NAME or `service_name` (OpenTelemetry's own default, `unknown_service`, says less). */
const DEFAULT_SERVICE_NAME = 'model-gateway';

/** The specification's default sampler. */
const DEFAULT_SAMPLER: SamplerConfigModel = { parent_based: { root: { always_on: {} } } };

/** The settings, or undefined when tracing is off. Reads `process.env`: the variables are the process's. */
export function tracingSettings(section: TracingConfig): TracingSettings | undefined {
  const model = environmentModel();
  if (model === undefined) return undefined;
  const processor = model.tracer_provider?.processors[0]?.batch;
  const otlp = processor?.exporter.otlp_http;
  const url = section.endpoint ?? (endpointVariableSet() ? otlp?.endpoint : undefined);
  if (!url) return undefined;
  return {
    url,
    protocol: section.protocol ?? (otlp?.encoding === 'json' ? 'http/json' : 'http/protobuf'),
    headers: { ...mergeHeadersConfig(otlp?.headers ?? undefined, otlp?.headers_list), ...section.headers },
    timeoutMs: otlp?.timeout ?? 10_000,
    sampler: samplerOf(section, model),
    batch: batchOf(section, processor),
    resource: {
      'service.name': DEFAULT_SERVICE_NAME,
      ...resourceOf(model),
      ...serviceName(section),
      ...section.resource_attributes,
    },
    captureContent: section.capture_content,
  };
}

/** OpenTelemetry's reading of the environment; undefined when the SDK or trace export is turned off. */
function environmentModel(): ConfigurationModel | undefined {
  const exporters = process.env.OTEL_TRACES_EXPORTER?.trim();
  const model = exporters ? createConfigFactory().getConfigModel() : withDefaultExporter();
  if (model.disabled) return undefined;
  if (exporters && exporters.split(',').some((name) => name.trim() === 'none')) return undefined;
  return model;
}

/** The model as read with OTEL_TRACES_EXPORTER at its default, `otlp` (the package wants it stated). */
function withDefaultExporter(): ConfigurationModel {
  process.env.OTEL_TRACES_EXPORTER = 'otlp';
  try {
    return createConfigFactory().getConfigModel();
  } finally {
    delete process.env.OTEL_TRACES_EXPORTER;
  }
}

function samplerOf(section: TracingConfig, model: ConfigurationModel): SamplerConfigModel {
  if (section.sampler) return SAMPLERS[section.sampler](section.sampler_arg ?? 1);
  return model.tracer_provider?.sampler ?? DEFAULT_SAMPLER;
}

function batchOf(
  section: TracingConfig,
  env: BatchSpanProcessorConfigModel | undefined,
): TracingSettings['batch'] {
  const own = section.batch;
  return {
    scheduleDelayMs: own.schedule_delay ?? env?.schedule_delay ?? 5_000,
    exportTimeoutMs: own.export_timeout ?? env?.export_timeout ?? 30_000,
    maxQueueSize: own.max_queue_size ?? env?.max_queue_size ?? 2_048,
    maxExportBatchSize: own.max_export_batch_size ?? env?.max_export_batch_size ?? 512,
  };
}

function resourceOf(model: ConfigurationModel): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const { name, value } of model.resource?.attributes ?? []) {
    if (value !== null && value !== undefined) attributes[name] = value;
  }
  return attributes;
}

const serviceName = (section: TracingConfig): Record<string, string> =>
  section.service_name ? { 'service.name': section.service_name } : {};
