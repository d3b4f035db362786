/**
 * Tracing's settings from the standard OTEL_* variables and the `tracing:` section: off without an
 * endpoint or when turned off, each variable as the specification reads it, each section field over its
 * variable.
 */
import t from 'tap';
import { gatewayConfigSchema, type TracingConfig } from '../../../config/schema';
import { tracingSettings } from '../../../core/observability/tracing/tracing-settings';

const section = (doc: Record<string, unknown> = {}): TracingConfig =>
  gatewayConfigSchema.parse({ pipeline: ['auth'], tracing: doc }).tracing;

/** Runs `fn` with only `vars` of the OTEL_* variables set. */
function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const saved = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OTEL_')));
  for (const name of Object.keys(saved)) delete process.env[name];
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

t.test('off without an endpoint, and when turned off', (t) => {
  t.equal(
    withEnv({}, () => tracingSettings(section())),
    undefined,
    'nothing set',
  );
  t.equal(
    withEnv({ OTEL_SERVICE_NAME: 'gw' }, () => tracingSettings(section())),
    undefined,
    'no endpoint',
  );
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  t.equal(
    withEnv({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }, () => tracingSettings(section())),
    undefined,
    'OTEL_TRACES_EXPORTER=none',
  );
  t.equal(
    withEnv({ ...endpoint, OTEL_SDK_DISABLED: 'true' }, () => tracingSettings(section())),
    undefined,
    'OTEL_SDK_DISABLED=true',
  );
  t.end();
});

t.test('the generic endpoint, and the defaults', (t) => {
  const settings = withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, () =>
    tracingSettings(section()),
  );
  t.strictSame(settings, {
    url: 'http://collector:4318/v1/traces',
    protocol: 'http/protobuf',
    headers: {},
    timeoutMs: 10_000,
    // The specification's default, as OpenTelemetry's configuration model states it.
    sampler: { parent_based: { root: { always_on: null } } },
    batch: { scheduleDelayMs: 5_000, exportTimeoutMs: 30_000, maxQueueSize: 2_048, maxExportBatchSize: 512 },
    resource: { 'service.name': 'model-gateway' },
    captureContent: false,
  });
  t.equal(process.env.OTEL_TRACES_EXPORTER, undefined, 'the environment is left as it was');
  t.end();
});

t.test('every variable as the specification reads it', (t) => {
  const settings = withEnv(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer abc,x-tenant=t1',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_SERVICE_NAME: 'gateway-eu',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,team=platform',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_BSP_EXPORT_TIMEOUT: '3000',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10',
    },
    () => tracingSettings(section()),
  );
  t.match(settings, {
    url: 'http://collector:4318/custom/traces',
    protocol: 'http/json',
    headers: { authorization: 'Bearer abc', 'x-tenant': 't1' },
    timeoutMs: 2_000,
    sampler: { parent_based: { root: { trace_id_ratio_based: { ratio: 0.01 } } } },
    batch: { scheduleDelayMs: 200, exportTimeoutMs: 3_000, maxQueueSize: 100, maxExportBatchSize: 10 },
    resource: { 'service.name': 'gateway-eu', 'deployment.environment': 'prod', team: 'platform' },
  });
  t.end();
});

t.test('each field of the section wins over its variable', (t) => {
  const settings = withEnv(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://from-env:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=env,x-env-only=1',
      OTEL_SERVICE_NAME: 'from-env',
      OTEL_TRACES_SAMPLER: 'always_off',
      OTEL_BSP_SCHEDULE_DELAY: '9000',
    },
    () =>
      tracingSettings(
        section({
          endpoint: 'http://from-yaml:4318/v1/traces',
          protocol: 'http/json',
          headers: { 'x-tenant': 'yaml' },
          service_name: 'from-yaml',
          resource_attributes: { region: 'eu-west-1' },
          sampler: 'traceidratio',
          sampler_arg: 0.5,
          batch: { schedule_delay: '250ms' },
          capture_content: true,
        }),
      ),
  );
  t.match(settings, {
    url: 'http://from-yaml:4318/v1/traces',
    protocol: 'http/json',
    headers: { 'x-tenant': 'yaml', 'x-env-only': '1' },
    sampler: { trace_id_ratio_based: { ratio: 0.5 } },
    batch: { scheduleDelayMs: 250, exportTimeoutMs: 30_000 },
    resource: { 'service.name': 'from-yaml', region: 'eu-west-1' },
    captureContent: true,
  });
  const yamlOnly = withEnv({}, () => tracingSettings(section({ endpoint: 'http://c:4318/v1/traces' })));
  t.equal(yamlOnly?.url, 'http://c:4318/v1/traces', 'the section alone turns tracing on');
  t.end();
});

t.test('the section refuses what it cannot use', (t) => {
  for (const doc of [
    { endpoint: 'grpc://c:4317' },
    { protocol: 'grpc' },
    { sampler: 'sometimes' },
    { sampler_arg: 2 },
    { exporter: 'zipkin' },
  ]) {
    t.throws(() => section(doc), { name: 'ZodError' }, JSON.stringify(doc));
  }
  t.end();
});
