/**
 * The modeld upstream end to end: what the upstream receives (its own credential and version header, never
 * the client's key), what the client gets back (JSON, and the event stream relayed with its `event:` lines),
 * and the usage record each call leaves. The simulator's arithmetic makes the figures known in advance:
 * input tokens are ceil(characters / 4), output tokens are `x-sim-tokens`.
 */
import t, { type Test } from 'tap';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { openStream, parseSse, type JsonResponse, untilData } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { newId, upstreamOf, usageOf } from '../chat-helpers';
import { messages, MODELD, VERSION } from '../messages-helpers';

// 40 characters: 10 input tokens upstream.
const PROMPT = [{ role: 'user', content: 'Tell me about the weather in Paris now.' }];
const INPUT_TOKENS = 10;
// The gateway's own estimate of 5 generated words would differ, so a record of 5 comes from the upstream.
const TOKENS = 5;
const SIM = { ...VERSION, 'x-sim-tokens': String(TOKENS) };

const body = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 256,
  messages: PROMPT,
  ...extra,
});

interface StreamEvent {
  event: string | undefined;
  data: Record<string, unknown>;
}

/** The events of an SSE body, with `data` parsed. */
const eventsOf = (text: string): StreamEvent[] =>
  parseSse(text).map((e) => ({ event: e.event, data: JSON.parse(e.data) as Record<string, unknown> }));

/** The deltas of one delta type, in order. */
const deltas = (events: StreamEvent[], type: string): Record<string, unknown>[] =>
  events
    .filter((e) => e.event === 'content_block_delta')
    .map((e) => e.data.delta as Record<string, unknown>)
    .filter((d) => d.type === type);

/** A complete stream: SSE headers, every `event:` equal to its JSON `type`, message_start first, message_stop last. */
function isCompleteStream(t: Test, res: JsonResponse): StreamEvent[] {
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  const events = eventsOf(res.text);
  t.ok(
    events.every((e) => e.event === e.data.type),
    'each event name equals its type',
  );
  t.equal(events[0]?.event, 'message_start');
  t.equal(events.at(-1)?.event, 'message_stop');
  return events;
}

async function onlyRecord(t: Test, gw: TestGateway, id: string) {
  const records = await usageOf(gw, id);
  t.equal(records.length, 1, 'exactly one usage record');
  return records[0]!;
}

void t.test('the modeld upstream, there and back', async (t) => {
  const gw = await startTestGateway(t);

  await t.test(
    "the upstream gets its own credential and version header, never the client's key",
    async (t) => {
      const id = newId('modeld-creds');
      const res = await messages(gw, body('modeld-sonnet-4-6'), id, {
        ...SIM,
        'x-api-key': 'sk-client-secret',
      });
      t.equal(res.status, 200);
      const [entry] = upstreamOf(gw, id);
      t.equal(entry?.headers['x-api-key'], 'sim-modeld-key');
      t.equal(entry?.headers.authorization, undefined, "the client's Bearer key stays at the gateway");
      t.equal(entry?.headers['modeld-version'], '2023-06-01');
    },
  );

  await t.test('JSON: the upstream’s message with usage, metered from it, for every model', async (t) => {
    for (const model of MODELD) {
      const id = newId(`modeld-json-${model}`);
      const res = await messages(gw, body(model), id, SIM);
      t.equal(res.status, 200, model);
      t.match(res.body, {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: String }],
        usage: { input_tokens: INPUT_TOKENS, output_tokens: TOKENS },
      });
      t.match(await onlyRecord(t, gw, id), {
        model,
        upstream: 'modeld-main',
        endpoint: 'messages',
        status: 200,
        stream: false,
        prompt_tokens: INPUT_TOKENS,
        completion_tokens: TOKENS,
        estimated: false,
        outcome: 'ok',
      });
    }
  });

  await t.test(
    'streams: every event relayed with its name; output tokens from the last message_delta',
    async (t) => {
      for (const model of MODELD) {
        const id = newId(`modeld-stream-${model}`);
        const res = await messages(gw, body(model, { stream: true }), id, SIM);
        const events = isCompleteStream(t, res);
        const start = events[0]!.data.message as { usage: { output_tokens: number } };
        t.ok(start.usage.output_tokens > 0, 'message_start carries a placeholder output count');
        const delta = events.find((e) => e.event === 'message_delta')!.data.usage as {
          output_tokens: number;
        };
        t.equal(delta.output_tokens, TOKENS);
        t.equal(deltas(events, 'text_delta').length, TOKENS);
        t.match(await onlyRecord(t, gw, id), {
          model,
          stream: true,
          prompt_tokens: INPUT_TOKENS,
          completion_tokens: TOKENS, // not TOKENS + the placeholder
          estimated: false,
          outcome: 'ok',
        });
      }
    },
  );

  await t.test('cache reads are counted in the prompt and recorded apart', async (t) => {
    const cached = 'A long, stable preamble worth caching.!!'; // 40 characters: 10 tokens
    const system = [{ type: 'text', text: cached, cache_control: { type: 'ephemeral' } }];
    for (const stream of [false, true]) {
      const id = newId(`modeld-cache-${stream}`);
      const res = await messages(gw, body('modeld-sonnet-4-6', { system, stream }), id, SIM);
      t.equal(res.status, 200);
      // The vendor reports uncached input (INPUT_TOKENS) and cache reads apart; the prompt is both.
      t.match(await onlyRecord(t, gw, id), {
        prompt_tokens: INPUT_TOKENS + 10,
        cache_read_tokens: 10,
        completion_tokens: TOKENS,
      });
    }
  });

  await t.test('thinking and tool-use streams: every delta type arrives', async (t) => {
    const thinkingId = newId('modeld-thinking');
    const thinking = await messages(
      gw,
      body('modeld-opus-4-8', { stream: true, thinking: { type: 'adaptive' } }),
      thinkingId,
      SIM,
    );
    const thinkingEvents = isCompleteStream(t, thinking);
    t.ok(deltas(thinkingEvents, 'thinking_delta').length > 0, 'thinking_delta');
    t.equal(deltas(thinkingEvents, 'signature_delta').length, 1, 'signature_delta');
    t.ok(deltas(thinkingEvents, 'text_delta').length > 0, 'text_delta');
    const record = await onlyRecord(t, gw, thinkingId);
    const final = thinkingEvents.find((e) => e.event === 'message_delta')!.data.usage as {
      output_tokens: number;
    };
    t.equal(
      record.completion_tokens,
      final.output_tokens,
      'thinking tokens billed as the upstream counted them',
    );

    const tools = [{ name: 'get_weather', input_schema: { type: 'object' } }];
    const toolRes = await messages(
      gw,
      body('modeld-opus-4-6', { stream: true, tools }),
      newId('modeld-tool'),
      SIM,
    );
    const toolEvents = isCompleteStream(t, toolRes);
    const start = toolEvents.find((e) => e.event === 'content_block_start')!.data.content_block;
    t.match(start, { type: 'tool_use', name: 'get_weather', input: {} });
    const json = deltas(toolEvents, 'input_json_delta').map((d) => String(d.partial_json));
    t.type(JSON.parse(json.join('')) as unknown, 'object', 'the fragments join into the tool input');
    t.match(toolEvents.find((e) => e.event === 'message_delta')!.data.delta, { stop_reason: 'tool_use' });
  });

  await t.test(
    'a stream cut mid-way ends with an error event; its usage is estimated and marked',
    async (t) => {
      const id = newId('modeld-cut');
      const res = await messages(gw, body('modeld-sonnet-4-6', { stream: true }), id, {
        ...SIM,
        'x-sim-cut-after': '2',
      });
      t.equal(res.status, 200, 'the stream had begun');
      const events = eventsOf(res.text);
      t.equal(events.at(-1)?.event, 'error');
      t.match(events.at(-1)?.data, { type: 'error', error: { code: 'upstream_stream_cut', type: 'error' } });
      t.notOk(
        events.some((e) => e.event === 'message_stop'),
        'no message_stop after a cut',
      );
      const delivered = deltas(events, 'text_delta').map((d) => String(d.text));
      t.equal(delivered.length, 2, 'the two deltas sent before the cut arrive');
      t.match(await onlyRecord(t, gw, id), {
        prompt_tokens: INPUT_TOKENS, // message_start arrived before the cut
        completion_tokens: Math.ceil(delivered.join('').length / 4), // estimated from what was delivered
        estimated: true,
        outcome: 'upstream_cut',
      });
    },
  );

  await t.test("an upstream error mid-stream is relayed once, as the upstream's error event", async (t) => {
    const id = newId('modeld-midstream-error');
    const res = await messages(gw, body('modeld-sonnet-4-6', { stream: true }), id, {
      ...SIM,
      'x-sim-error-after': '2',
    });
    const events = eventsOf(res.text);
    const errors = events.filter((e) => e.event === 'error');
    t.equal(errors.length, 1, 'one error event');
    t.match(errors[0]?.data, { type: 'error', error: { type: 'overloaded_error' } });
    t.match(await onlyRecord(t, gw, id), { outcome: 'vendor_error' });
  });

  await t.test(
    "an upstream failure before the first byte keeps the upstream's status and body",
    async (t) => {
      for (const stream of [false, true]) {
        const id = newId(`modeld-529-${stream}`);
        const res = await messages(gw, body('modeld-sonnet-4-6', { stream }), id, {
          ...SIM,
          'x-sim-status': '529',
        });
        t.equal(res.status, 529);
        t.match(res.body, { type: 'error', error: { type: 'overloaded_error' } });
        t.match(await onlyRecord(t, gw, id), { status: 529, prompt_tokens: 0, completion_tokens: 0 });
      }
    },
  );

  await t.test('the deprecation warning also rides on streams', async (t) => {
    const res = await messages(
      gw,
      body('modeld-sonnet-4-6', {
        stream: true,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
      }),
      newId('modeld-deprecated-stream'),
      SIM,
    );
    isCompleteStream(t, res);
    t.match(res.headers.get('warning'), /^299 - "thinking type 'enabled'/);
  });

  await t.test('a client that disconnects aborts the upstream stream at once', async (t) => {
    const id = newId('modeld-client-gone');
    const res = await openStream(
      `${gw.url}/v1/messages`,
      body('modeld-sonnet-4-6', { stream: true }),
      gw.key,
      {
        ...VERSION,
        'x-request-id': id,
        'x-sim-tps': '5',
        'x-sim-tokens': '50',
      },
    );
    res.setEncoding('utf8');
    await untilData(res, 'text_delta');
    res.socket.destroy();
    // Room for a loaded machine, and still half the stream's own ten seconds.
    await eventually(() => upstreamOf(gw, id)[0]?.aborted === true, 5_000, 'the upstream stream aborted');
    t.equal(upstreamOf(gw, id)[0]?.finished, false, 'the upstream never finished its stream');
    t.match(await onlyRecord(t, gw, id), { outcome: 'client_closed', estimated: true });
  });
});

void t.test('the credential style and version header come from gateway.yaml', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    Object.assign(upstreams['modeld-main']!, {
      auth: { header: 'authorization', scheme: 'Bearer' },
      version_header: { name: 'anthropic-version', value: '2023-06-01' },
      headers: { 'modeld-version': '2023-06-01' }, // the simulator's own name for it
    });
  });
  const id = newId('modeld-configured');
  const res = await messages(gw, body('modeld-opus-4-8'), id, SIM);
  t.equal(res.status, 200);
  const headers = upstreamOf(gw, id)[0]?.headers ?? {};
  t.equal(headers.authorization, 'Bearer sim-modeld-key');
  t.equal(headers['x-api-key'], undefined);
  t.equal(headers['anthropic-version'], '2023-06-01');
});
