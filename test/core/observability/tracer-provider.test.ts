/**
 * The gateway's tracer against a real OTLP/HTTP receiver, in protobuf and in JSON: a span and its
 * child arrive with their ids, parent, kind, attributes, events and resource; the samplers the settings
 * name keep or drop traces.
 */
import t from 'tap';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { samplerOf, startTracing } from '../../../core/observability/tracing/tracer-provider';
import type { TracingSettings } from '../../../core/observability/tracing/tracing-settings';
import { startOtlpReceiver } from '../../helpers/otlp-receiver';

const settingsFor = (url: string, protocol: TracingSettings['protocol']): TracingSettings => ({
  url,
  protocol,
  headers: { 'x-tenant': 'gateway-tests' },
  timeoutMs: 5_000,
  sampler: { parent_based: { root: { always_on: null } } },
  batch: { scheduleDelayMs: 50, exportTimeoutMs: 5_000, maxQueueSize: 100, maxExportBatchSize: 10 },
  resource: { 'service.name': 'gateway-under-test', 'deployment.environment': 'test' },
  captureContent: false,
});

for (const protocol of ['http/protobuf', 'http/json'] as const) {
  t.test(`spans reach the receiver over ${protocol}`, async (t) => {
    const receiver = await startOtlpReceiver(t);
    const tracing = startTracing(settingsFor(receiver.url, protocol));
    const parent = tracing.tracer.startSpan('POST /v1/chat/completions', {
      kind: SpanKind.SERVER,
      attributes: { 'gen_ai.request.model': 'modela-5.5', 'gen_ai.request.max_tokens': 20 },
    });
    const child = tracing.tracer.startSpan(
      'chat modela-5.5',
      { kind: SpanKind.CLIENT, attributes: { 'gateway.attempt': 1 } },
      trace.setSpan(context.active(), parent),
    );
    child.addEvent('gen_ai.first_token', { 'gateway.ms': 12.5 });
    child.end();
    parent.end();
    await tracing.shutdown();

    const spans = await receiver.until((s) => s.length === 2);
    const server = spans.find((s) => s.kind === 2)!;
    const client = spans.find((s) => s.kind === 3)!;
    t.equal(server.name, 'POST /v1/chat/completions');
    t.equal(server.parentSpanId, '', 'the first span is a root');
    t.match(server.traceId, /^[0-9a-f]{32}$/);
    t.equal(client.traceId, server.traceId, 'one trace');
    t.equal(client.parentSpanId, server.spanId, 'the child names its parent');
    t.strictSame(server.attributes, {
      'gen_ai.request.model': 'modela-5.5',
      'gen_ai.request.max_tokens': 20,
    });
    t.strictSame(client.events, [{ name: 'gen_ai.first_token', attributes: { 'gateway.ms': 12.5 } }]);
    t.match(server.resource, { 'service.name': 'gateway-under-test', 'deployment.environment': 'test' });
    t.equal(server.scope, 'model-gateway');
    t.ok(server.endNs > server.startNs, 'with its start and end times');
    const sent = receiver.exports[0]!;
    t.match(sent.contentType, protocol === 'http/json' ? /^application\/json/ : /^application\/x-protobuf/);
    t.equal(sent.headers['x-tenant'], 'gateway-tests', 'with the configured headers');
  });
}

t.test('the samplers the settings name', (t) => {
  const decide = (model: Parameters<typeof samplerOf>[0]) =>
    samplerOf(model).shouldSample(
      context.active(),
      '0af7651916cd43dd8448eb211c80319c',
      'x',
      SpanKind.SERVER,
      {},
      [],
    ).decision;
  t.equal(decide({ always_on: null }), 2, 'always_on records and samples');
  t.equal(decide({ always_off: null }), 0, 'always_off drops');
  t.equal(decide({ trace_id_ratio_based: { ratio: 0 } }), 0, 'a ratio of 0 drops');
  t.equal(decide({ trace_id_ratio_based: { ratio: 1 } }), 2, 'a ratio of 1 keeps');
  t.equal(
    decide({ parent_based: { root: { always_off: null } } }),
    0,
    'a root under parent_based follows its root',
  );
  t.end();
});
