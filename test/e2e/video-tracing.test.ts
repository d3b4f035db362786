/**
 * A video task's trace across two instances: instance A answers the submit (its poller off), instance B
 * (another poller with a tracer of its own, over the same task store) polls and bills the task. The
 * submit's span starts the trace; each poll is a span of its own linked to it; the billing continues the
 * submit's trace on B, with the seconds billed and the cost.
 */
import t from 'tap';
import { Pricing } from '../../core/billing/pricing';
import { startTracing } from '../../core/observability/tracing/tracer-provider';
import { tracingSettings } from '../../core/observability/tracing/tracing-settings';
import { TaskSpans } from '../../core/observability/tracing/task-spans';
import { startTestGateway } from '../helpers/gateway';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { allBilled, poller, videoaUpstream } from '../helpers/pollers';
import { eventually } from '../helpers/wait';
import { submitVideo, videoBody } from '../plugins/video-helpers';

const SERVER = 2;
const CLIENT = 3;
const BATCH = { schedule_delay: '20ms' };
const PRICES = { 'videoa-*': { per_second: { '720P': 0.1 } } };

t.test('submit on one instance, polls and billing on another: one trace from submit to bill', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const gw = await startTestGateway(t, (doc) => {
    (doc.video as Record<string, unknown>).poller = false;
    doc.tracing = {
      endpoint: receiver.url,
      batch: BATCH,
      resource_attributes: { 'service.instance.id': 'instance-a' },
    };
  });
  const settingsB = tracingSettings({
    endpoint: receiver.url,
    batch: { schedule_delay: 20 },
    resource_attributes: { 'service.instance.id': 'instance-b' },
    capture_content: false,
  });
  const tracingB = startTracing(settingsB!);
  t.teardown(() => tracingB.shutdown());
  const instanceB = poller(gw, 'instance-b/poller', videoaUpstream(gw), {
    pricing: new Pricing(PRICES),
    spans: new TaskSpans(tracingB.tracer),
  });
  instanceB.start();
  t.teardown(() => instanceB.stop());

  const submitted = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=150'), {
    'x-request-id': 'video-submit',
  });
  t.equal(submitted.status, 200);
  const id = String(submitted.body.id);
  await eventually(() => allBilled(gw, [id]), 10_000);

  // Each instance exports on its own schedule, in the order its spans end: B's billing comes after its
  // polls, but A's submit spans may come after all of B's. Wait for the billing and the submit's spans.
  const submitOf = (all: readonly ReceivedSpan[]) =>
    all.find((s) => s.kind === SERVER && s.attributes['gateway.request_id'] === 'video-submit');
  const spans = await receiver.until((all) => {
    const submitted = submitOf(all);
    return (
      all.some((s) => s.name === 'bill video task') &&
      all.some((s) => s.kind === CLIENT && submitted !== undefined && s.parentSpanId === submitted.spanId)
    );
  });
  const submit = submitOf(spans);
  t.ok(submit, "the submit's request span");
  t.equal(submit?.resource['service.instance.id'], 'instance-a');
  t.match(submit?.attributes, {
    'gen_ai.operation.name': 'generate_content',
    'gen_ai.provider.name': 'videoa',
    'gen_ai.request.model': 'videoa-1.1-t2v',
    'http.response.status_code': 200,
  });
  const attempt = spans.find((s) => s.kind === CLIENT && s.parentSpanId === submit?.spanId);
  t.match(
    attempt?.attributes,
    { 'gateway.attempt': 1, 'gateway.upstream': 'videoa-main' },
    'the submit upstream',
  );

  const polls = spans.filter((s: ReceivedSpan) => s.name === 'poll videoa-main');
  t.ok(polls.length >= 1, 'each poll is a span');
  for (const poll of polls) {
    t.equal(poll.resource['service.instance.id'], 'instance-b', 'made by the instance that polled');
    t.not(poll.traceId, submit?.traceId, 'in a trace of its own');
    t.strictSame(
      poll.links,
      [{ traceId: submit?.traceId, spanId: submit?.spanId }],
      "linked to the submit's span",
    );
    t.equal(poll.attributes['gateway.task_id'], id);
  }
  t.equal(polls.at(-1)?.attributes['gateway.task.state'], 'succeeded', 'the last poll saw the video made');

  const sent = gw.sim.log.list().filter((r) => r.path.startsWith('/videoa/'));
  const submitCall = sent.find((r) => r.method === 'POST');
  t.equal(
    submitCall?.headers.traceparent,
    `00-${submit?.traceId}-${attempt?.spanId}-01`,
    "the submit's traceparent names its attempt",
  );
  const pollIds = new Set(polls.map((p) => `00-${p.traceId}-${p.spanId}-01`));
  const polled = sent.filter((r) => r.method === 'GET');
  t.ok(polled.length >= polls.length, 'every poll reached the upstream');
  t.ok(
    polled.every((r) => pollIds.has(String(r.headers.traceparent))),
    "each poll's traceparent names its span",
  );

  const bill = spans.find((s) => s.name === 'bill video task');
  t.equal(bill?.traceId, submit?.traceId, "the billing continues the submit's trace");
  t.equal(bill?.parentSpanId, submit?.spanId, "under the submit's span");
  t.equal(bill?.resource['service.instance.id'], 'instance-b');
  t.match(bill?.attributes, {
    'gateway.task_id': id,
    'gateway.billed': true,
    'gateway.video_seconds': 5,
    'gateway.cost_usd': 0.5,
  });
});

t.test("one instance's own poller: the task's billing ends its submit's trace", async (t) => {
  const receiver = await startOtlpReceiver(t);
  const gw = await startTestGateway(t, (doc) => {
    doc.tracing = { endpoint: receiver.url, batch: BATCH };
  });
  const submitted = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=100'));
  const id = String(submitted.body.id);
  await eventually(() => allBilled(gw, [id]), 10_000);
  const spans = await receiver.until((all) => all.some((s) => s.name === 'bill video task'));
  const bill = spans.find((s) => s.name === 'bill video task');
  const submit = spans.find((s) => s.kind === SERVER && s.spanId === bill?.parentSpanId);
  t.equal(submit?.name, 'POST /v1/videos/generations', "the billing's parent is the submit");
  t.match(bill?.attributes, { 'gateway.task_id': id, 'gateway.video_seconds': 5, 'gateway.cost_usd': 0.5 });
  t.ok(
    spans.some((s) => s.name === 'poll videoa-main' && s.links[0]?.spanId === submit?.spanId),
    'its polls link to the submit',
  );
});
