/**
 * The three chat families end to end: what each upstream receives (credential, renamed and added fields)
 * and what the client gets back (bodies, streams with usage stripped or kept), and the usage record each
 * call leaves. The simulator's arithmetic makes the upstream's figures known in advance: prompt tokens are
 * ceil(characters / 4), completion tokens are `x-sim-tokens` per choice (doubled when modelc thinks).
 */
import t, { type Test } from 'tap';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { parseSse, type JsonResponse } from '../../helpers/http';
import {
  chat,
  chunksOf,
  FAMILIES,
  MODEL,
  newId,
  UPSTREAM,
  upstreamBody,
  upstreamOf,
  usageOf,
  type ChatFamily,
} from '../chat-helpers';

// 40 characters: 10 prompt tokens upstream.
const PROMPT = [{ role: 'user', content: 'Tell me about the weather in Paris now.' }];
const PROMPT_TOKENS = 10;
// 5 completion tokens per choice; the gateway's own estimate of the 5 words would be 7, so a record of 5
// can only come from the upstream's figures.
const TOKENS = 5;
const SIM = { 'x-sim-tokens': String(TOKENS) };
const WORDS = 'Lorem ipsum dolor sit amet';
/**
 * modelb thinks (48 tokens a choice at its default effort, in the simulator) and, like the vendor, counts
 * its thinking only in `total_tokens`: the gateway bills it as output and records it as reasoning.
 */
const HIDDEN_THOUGHTS: Record<ChatFamily, number> = { A: 0, B: 48, C: 0 };
/**
 * A stream chunk's `usage` when the client did not ask for it: none (OpenAI, Gemini), or the `null` that
 * DashScope puts on every chunk unasked (docs/upstreams.md#modelc), which the client keeps.
 */
const UNASKED_USAGE: Record<ChatFamily, 'absent' | null> = { A: 'absent', B: 'absent', C: null };

/** Asserts the single usage record of request `id`. */
async function meteredAs(
  t: Test,
  gw: TestGateway,
  id: string,
  family: ChatFamily,
  expected: { stream: boolean; completion: number; choices?: number; reasoning?: number },
): Promise<void> {
  const records = await usageOf(gw, id);
  t.equal(records.length, 1, 'exactly one usage record');
  const thoughts = HIDDEN_THOUGHTS[family] * (expected.choices ?? 1);
  const completion = expected.completion + thoughts;
  t.equal(
    records[0]?.reasoning_tokens,
    expected.reasoning ?? (thoughts || undefined),
    'reasoning tokens, where the vendor counts them',
  );
  t.match(records[0], {
    model: MODEL[family],
    upstream: UPSTREAM[family].name,
    endpoint: 'chat-completions',
    status: 200,
    stream: expected.stream,
    prompt_tokens: PROMPT_TOKENS,
    completion_tokens: completion,
    total_tokens: PROMPT_TOKENS + completion,
    estimated: false,
    outcome: 'ok',
  });
}

/** A complete event stream: SSE headers, `[DONE]` last, every chunk of the one completion id. */
function isCompleteStream(t: Test, res: JsonResponse): void {
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  const events = parseSse(res.text);
  t.equal(events.at(-1)?.data, '[DONE]', 'ends with data: [DONE]');
  t.equal(new Set(chunksOf(res.text).map((c) => c.id)).size, 1, 'one completion id');
}

/** The text of choice `index`, joined from its content deltas. */
const streamedText = (text: string, index = 0): string =>
  chunksOf(text)
    .flatMap((c) => c.choices.filter((ch) => ch.index === index))
    .map((ch) => (typeof ch.delta.content === 'string' ? ch.delta.content : ''))
    .join('');

void t.test('the chat families, upstream and back', async (t) => {
  const gw = await startTestGateway(t);

  await t.test('client credentials never reach the upstream; its own credential does', async (t) => {
    for (const family of FAMILIES) {
      const id = newId(`creds-${family}`);
      const res = await chat(gw, { model: MODEL[family], messages: PROMPT }, id, {
        'x-api-key': 'sk-client-other-secret',
        cookie: 'session=client-cookie',
      });
      t.equal(res.status, 200);
      const headers = upstreamOf(gw, id)[0]?.headers ?? {};
      t.equal(headers.authorization, `Bearer ${UPSTREAM[family].key}`, MODEL[family]);
      t.notOk('x-api-key' in headers, 'no x-api-key');
      t.notOk('cookie' in headers, 'no cookie');
      const values = JSON.stringify(headers);
      t.notOk(values.includes(gw.key), 'the gateway key appears nowhere upstream');
      t.notOk(values.includes('client-other-secret') || values.includes('client-cookie'), 'nor the others');
    }
  });

  await t.test('a JSON response is the upstream’s, with usage', async (t) => {
    // Keys only one upstream sends prove the body is passed on, not rebuilt.
    const own: Record<ChatFamily, Record<string, unknown>> = {
      A: { service_tier: 'default', system_fingerprint: 'fp_sim0001' },
      B: {},
      C: { system_fingerprint: null },
    };
    for (const family of FAMILIES) {
      const id = newId(`json-${family}`);
      const res = await chat(gw, { model: MODEL[family], messages: PROMPT }, id, SIM);
      t.equal(res.status, 200, MODEL[family]);
      t.match(res.body, {
        id: /^chatcmpl-/,
        object: 'chat.completion',
        created: Number,
        model: MODEL[family],
        choices: [{ index: 0, message: { role: 'assistant', content: WORDS }, finish_reason: 'stop' }],
        // The client sees the vendor's own usage, unchanged.
        usage: {
          prompt_tokens: PROMPT_TOKENS,
          completion_tokens: TOKENS,
          total_tokens: PROMPT_TOKENS + TOKENS + HIDDEN_THOUGHTS[family],
        },
        ...own[family],
      });
      t.equal(res.headers.get('x-request-id'), id, 'the gateway’s request id');
      t.ok(res.headers.get('x-upstream-request-id'), 'the upstream’s, under its own name');
      await meteredAs(t, gw, id, family, { stream: false, completion: TOKENS });
    }
  });

  await t.test('n: 2 gives two choices, in JSON and in streams', async (t) => {
    for (const family of FAMILIES) {
      const id = newId(`n2-${family}`);
      const res = await chat(gw, { model: MODEL[family], messages: PROMPT, n: 2 }, id, SIM);
      t.equal(res.status, 200, MODEL[family]);
      const choices = res.body.choices as { index: number; finish_reason: string }[];
      t.strictSame(
        choices.map((c) => [c.index, c.finish_reason]),
        [
          [0, 'stop'],
          [1, 'stop'],
        ],
      );
      await meteredAs(t, gw, id, family, { stream: false, completion: 2 * TOKENS, choices: 2 });

      const sid = newId(`n2-stream-${family}`);
      const stream = await chat(gw, { model: MODEL[family], messages: PROMPT, n: 2, stream: true }, sid, SIM);
      isCompleteStream(t, stream);
      const finishes = chunksOf(stream.text).flatMap((c) => c.choices.filter((ch) => ch.finish_reason));
      t.strictSame(
        finishes.map((ch) => ch.index),
        [0, 1],
        'a finish chunk per choice',
      );
      t.equal(streamedText(stream.text, 1).split(' ').length, TOKENS, 'choice 1 has its own text');
      await meteredAs(t, gw, sid, family, { stream: true, completion: 2 * TOKENS, choices: 2 });
    }
  });

  await t.test(
    'a stream the client did not ask usage for carries none, and is metered all the same',
    async (t) => {
      for (const family of FAMILIES) {
        const id = newId(`stream-${family}`);
        const body = { model: MODEL[family], messages: PROMPT, stream: true };
        const res = await chat(gw, body, id, SIM);
        isCompleteStream(t, res);
        const chunks = chunksOf(res.text);
        t.strictSame(
          chunks.map((c) => ('usage' in c ? c.usage : 'absent')),
          chunks.map(() => UNASKED_USAGE[family]),
          `${MODEL[family]}: each chunk's usage as the vendor sends it unasked`,
        );
        t.equal(chunks.filter((c) => c.choices.length === 0).length, 0, 'no usage chunk');
        t.equal(streamedText(res.text), WORDS);
        // Every family reports stream usage only when asked, so the gateway asks (and strips it again).
        const sent = upstreamBody(gw, id);
        t.strictSame(sent.stream_options, { include_usage: true }, 'usage asked for upstream');
        // Nothing else changed: the member is added in front of the client's bytes.
        t.equal(Object.keys(sent)[0], 'stream_options', 'added first');
        t.strictSame(
          sent,
          { stream_options: { include_usage: true }, ...body },
          'the rest as the client sent it',
        );
        await meteredAs(t, gw, id, family, { stream: true, completion: TOKENS });
      }
    },
  );

  await t.test('modela: max_tokens travels as max_completion_tokens', async (t) => {
    const id = newId('modela-max');
    const res = await chat(gw, { model: MODEL.A, messages: PROMPT, max_tokens: 3 }, id, SIM);
    t.equal(res.status, 200);
    const sent = upstreamBody(gw, id);
    t.equal(sent.max_completion_tokens, 3);
    t.notOk('max_tokens' in sent);
    // The upstream honoured the cap, so the renamed field was the one it read.
    t.match(res.body, { choices: [{ message: { content: 'Lorem ipsum dolor' }, finish_reason: 'length' }] });
    await meteredAs(t, gw, id, 'A', { stream: false, completion: 3 });
  });

  await t.test('modelc: a client that asks for stream usage gets the usage chunk', async (t) => {
    const id = newId('modelc-usage');
    const body = { model: MODEL.C, messages: PROMPT, stream: true, stream_options: { include_usage: true } };
    const res = await chat(gw, body, id, SIM);
    isCompleteStream(t, res);
    t.strictSame(upstreamBody(gw, id), body, 'sent as the client wrote it');
    const chunks = chunksOf(res.text);
    const usageChunks = chunks.filter((c) => c.usage);
    t.equal(usageChunks.length, 1, 'one chunk with usage');
    t.strictSame(usageChunks[0]?.choices, [], 'the usage chunk has no choices');
    t.match(usageChunks[0]?.usage, {
      prompt_tokens: PROMPT_TOKENS,
      completion_tokens: TOKENS,
      total_tokens: PROMPT_TOKENS + TOKENS,
    });
    t.equal(chunks.at(-1), usageChunks[0], 'and it comes last, before [DONE]');
    await meteredAs(t, gw, id, 'C', { stream: true, completion: TOKENS });
  });

  await t.test(
    'modelc: include_usage false is overridden upstream and the usage chunk dropped again',
    async (t) => {
      const id = newId('modelc-usage-false');
      const options = { include_usage: false };
      const res = await chat(
        gw,
        { model: MODEL.C, messages: PROMPT, stream: true, stream_options: options },
        id,
        SIM,
      );
      isCompleteStream(t, res);
      t.strictSame(upstreamBody(gw, id).stream_options, { include_usage: true });
      const chunks = chunksOf(res.text);
      t.equal(chunks.filter((c) => c.choices.length === 0).length, 0, 'no usage chunk for the client');
      t.ok(
        chunks.every((c) => c.usage === null),
        'and every chunk has the usage: null DashScope sends unasked',
      );
      await meteredAs(t, gw, id, 'C', { stream: true, completion: TOKENS });
    },
  );

  await t.test('modelc: enable_thinking streams reasoning_content before the answer', async (t) => {
    const id = newId('modelc-thinking');
    const res = await chat(
      gw,
      { model: MODEL.C, messages: PROMPT, stream: true, enable_thinking: true },
      id,
      SIM,
    );
    isCompleteStream(t, res);
    t.equal(upstreamBody(gw, id).enable_thinking, true);
    const deltas = chunksOf(res.text).flatMap((c) => c.choices.map((ch) => ch.delta));
    const reasoning = deltas.filter((d) => typeof d.reasoning_content === 'string');
    t.equal(reasoning.length, TOKENS, 'one reasoning delta per thinking token');
    const firstContent = deltas.findIndex((d) => typeof d.content === 'string' && d.content !== '');
    t.ok(deltas.indexOf(reasoning.at(-1)!) < firstContent, 'reasoning first, then content');
    t.equal(streamedText(res.text), WORDS);
    // completion_tokens includes the reasoning tokens (docs/upstreams.md#modelc).
    await meteredAs(t, gw, id, 'C', { stream: true, completion: 2 * TOKENS, reasoning: TOKENS });
  });

  await t.test(
    'modelb: stream usage sent on the finish chunk is stripped, extra_body stays nested',
    async (t) => {
      const extra = { google: { thinking_config: { thinking_level: 'low', include_thoughts: true } } };
      const id = newId('modelb-stream');
      const res = await chat(
        gw,
        { model: MODEL.B, messages: PROMPT, stream: true, extra_body: extra },
        id,
        SIM,
      );
      isCompleteStream(t, res);
      const chunks = chunksOf(res.text);
      t.equal(chunks.filter((c) => 'usage' in c).length, 0, 'no usage key in any chunk');
      t.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop', 'the finish chunk is still there');
      const sent = upstreamBody(gw, id);
      t.strictSame(sent.extra_body, extra, 'a literal top-level extra_body');
      t.notOk('google' in sent, 'not flattened');
      await meteredAs(t, gw, id, 'B', { stream: true, completion: TOKENS });
    },
  );
});
