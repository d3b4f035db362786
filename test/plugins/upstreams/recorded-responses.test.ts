/**
 * The vendors' own recorded responses (test/fixtures, sources in SOURCES.md), replayed over real HTTP and
 * real SSE in uneven pieces, through the whole gateway: what the client receives, and the usage record
 * each leaves, exact to what the vendor bills. Beside the simulator, these pin the metering to bytes the
 * vendors really sent (Gemini's hidden thinking, Anthropic's cumulative cache counts, Qwen's reasoning).
 */
import t, { type Test } from 'tap';
import type { UsageRecord } from '../../../core/stores/usage-store';
import { pointUpstreamsAt, startTestGateway, type ConfigDoc, type TestGateway } from '../../helpers/gateway';
import { parseSse, postJson } from '../../helpers/http';
import {
  readFixture,
  startReplayUpstream,
  type RecordedRequest,
  type ReplayAnswer,
  type ReplayUpstream,
} from '../../helpers/replay-upstream';
import { newId, usageOf } from '../chat-helpers';
import { VERSION } from '../messages-helpers';
import { PROTOCOLS, submitVideo, untilFinished, videoBody, VIDEOB_MODEL } from '../video-helpers';

/** Prices every model alike, so each record's cost shows which tokens were billed at which rate. */
const PRICE = {
  input_per_mtok: 1,
  cached_input_per_mtok: 0.1,
  cache_write_per_mtok: 1.25,
  output_per_mtok: 10,
  per_image: 0.04,
};

interface Case {
  readonly fixture: string;
  readonly path: string;
  readonly model: string;
  readonly stream: boolean;
  /** The record's token fields, mapped from the vendor's figures (the comment says how). */
  readonly record: Partial<UsageRecord>;
  /** What the record costs at PRICE in micro-units, worked out by hand (1 per million = 1 micro-unit a token). */
  readonly cost_micros: number;
}

const CHAT = '/v1/chat/completions';
const MESSAGES = '/v1/messages';

const CASES: readonly Case[] = [
  {
    // OpenAI, every detail count 0: prompt 16, completion 363, total 379.
    fixture: 'modela/json.json',
    path: CHAT,
    model: 'modela-5.5',
    stream: false,
    record: { prompt_tokens: 16, completion_tokens: 363, total_tokens: 379 },
    cost_micros: 16 + 3630,
  },
  {
    // OpenAI with include_usage (asked by the gateway): the choices:[] chunk 14/47/61.
    fixture: 'modela/stream-include-usage.sse',
    path: CHAT,
    model: 'modela-5.5',
    stream: true,
    record: { prompt_tokens: 14, completion_tokens: 47, total_tokens: 61 },
    cost_micros: 14 + 470,
  },
  {
    // Gemini leaves 30 thinking tokens out of completion_tokens (2) but counts them in total (49).
    fixture: 'modelb/json-thinking-hidden-a.json',
    path: CHAT,
    model: 'modelb-3.5-flash',
    stream: false,
    record: { prompt_tokens: 17, completion_tokens: 32, reasoning_tokens: 30, total_tokens: 49 },
    cost_micros: 17 + 320,
  },
  {
    // 1,238 hidden thinking tokens: 98% of the call, all billed as output.
    fixture: 'modelb/json-thinking-hidden-b.json',
    path: CHAT,
    model: 'modelb-3.1-pro-preview',
    stream: false,
    record: { prompt_tokens: 18, completion_tokens: 1240, reasoning_tokens: 1238, total_tokens: 1258 },
    cost_micros: 18 + 12400,
  },
  {
    // Usage on every chunk, cumulative: the last one (12/159/171) counts, never the sum.
    fixture: 'modelb/stream-cumulative-usage.sse',
    path: CHAT,
    model: 'modelb-3.5-flash',
    stream: true,
    record: { prompt_tokens: 12, completion_tokens: 159, total_tokens: 171 },
    cost_micros: 12 + 1590,
  },
  {
    // Qwen counts its 1,353 reasoning tokens inside completion_tokens (1,668).
    fixture: 'modelc/json-reasoning.json',
    path: CHAT,
    model: 'modelc-3.7-max',
    stream: false,
    record: { prompt_tokens: 24, completion_tokens: 1668, reasoning_tokens: 1353, total_tokens: 1692 },
    cost_micros: 24 + 16680,
  },
  {
    fixture: 'modelc/stream-reasoning.sse',
    path: CHAT,
    model: 'modelc-3.7-max',
    stream: true,
    record: { prompt_tokens: 24, completion_tokens: 1355, reasoning_tokens: 1084, total_tokens: 1379 },
    cost_micros: 24 + 13550,
  },
  {
    fixture: 'modeld/json.json',
    path: MESSAGES,
    model: 'modeld-sonnet-4-6',
    stream: false,
    record: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    cost_micros: 10 + 50,
  },
  {
    // message_start's output_tokens (1) is a placeholder; message_delta's 6 is final.
    fixture: 'modeld/stream-text.sse',
    path: MESSAGES,
    model: 'modeld-sonnet-4-6',
    stream: true,
    record: { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 },
    cost_micros: 11 + 60,
  },
  {
    fixture: 'modeld/stream-tool-use.sse',
    path: MESSAGES,
    model: 'modeld-sonnet-4-6',
    stream: true,
    record: { prompt_tokens: 377, completion_tokens: 65, total_tokens: 442 },
    cost_micros: 377 + 650,
  },
  {
    // Thinking tokens are inside output_tokens (53).
    fixture: 'modeld/stream-thinking.sse',
    path: MESSAGES,
    model: 'modeld-sonnet-4-6',
    stream: true,
    record: { prompt_tokens: 69, completion_tokens: 53, total_tokens: 122 },
    cost_micros: 69 + 530,
  },
  {
    // The final message_delta replaces message_start's partial counts: 6 uncached + 3,337 written +
    // 6,289 read = 9,632 prompt tokens, each kind at its own rate.
    fixture: 'modeld/stream-code-execution-prompt-cache.sse',
    path: MESSAGES,
    model: 'modeld-sonnet-4-6',
    stream: true,
    record: {
      prompt_tokens: 9632,
      cache_read_tokens: 6289,
      cache_write_tokens: 3337,
      completion_tokens: 198,
      total_tokens: 9830,
    },
    // 6,289 × 0.1 = 628.9 rounds to 629; 3,337 × 1.25 = 4,171.25 rounds to 4,171 (each kind on its own).
    cost_micros: 6 + 629 + 4171 + 1980,
  },
  {
    // OpenAI's documented images answer: one image, 50 input and 50 output tokens.
    fixture: 'modelb-image/openai-images-doc-example.json',
    path: '/v1/images/generations',
    model: 'modelb-3.1-flash-image-preview',
    stream: false,
    record: { prompt_tokens: 50, completion_tokens: 50, images: 1 },
    cost_micros: 50 + 500 + 40_000,
  },
];

/** A minimal valid body for `c`'s API and model. */
function bodyFor(c: Case): Record<string, unknown> {
  if (c.path === MESSAGES) {
    return {
      model: c.model,
      max_tokens: 1024,
      stream: c.stream,
      messages: [{ role: 'user', content: 'hi' }],
    };
  }
  if (c.path === CHAT)
    return { model: c.model, stream: c.stream, messages: [{ role: 'user', content: 'hi' }] };
  return { model: c.model, prompt: 'a sheepadoodle in a cape' };
}

/** The upstreams of the test config, every one pointed at the replay server. */
function pointAt(doc: ConfigDoc, replay: ReplayUpstream): void {
  pointUpstreamsAt(doc, replay.url);
  // Exact names and earlier patterns win over '*'.
  doc.prices = {
    'videoa-*': { per_second: { '480P': 0.05, '720P': 0.1 } },
    'videob-*': { per_million_tokens: 10 },
    '*': PRICE,
  };
}

/** Video tasks: each family's submit answer, then its recorded success for every poll. */
const VIDEO_ANSWERS: Readonly<Record<string, string>> = {
  'POST /videoa': 'videoa/submit.json',
  'GET /videoa': 'videoa/poll-succeeded.json',
  'POST /videob': 'videob/create.json',
  'GET /videob': 'videob/poll-succeeded.json',
};

/** The fixture a request asked for (`x-fixture`), or the video family's answer for its method. */
function answerFor(req: RecordedRequest): ReplayAnswer {
  const asked = req.headers['x-fixture'];
  if (typeof asked === 'string') return { fixture: asked };
  const family = req.url.split('/')[1];
  return { fixture: VIDEO_ANSWERS[`${req.method} /${family}`] ?? 'missing' };
}

/** The text a stream delivered: chat content deltas, or messages text deltas. */
function streamedText(text: string): string {
  let out = '';
  for (const e of parseSse(text)) {
    if (e.data === '[DONE]') continue;
    const data = JSON.parse(e.data) as {
      choices?: { delta?: { content?: unknown } }[];
      delta?: { text?: unknown };
    };
    for (const choice of data.choices ?? [])
      if (typeof choice.delta?.content === 'string') out += choice.delta.content;
    if (typeof data.delta?.text === 'string') out += data.delta.text;
  }
  return out;
}

/**
 * What the client gets of a recorded stream it did not ask usage for, where the chunks carry no usage
 * figures but on the last: the vendor's own bytes, less the usage-only chunk and the `"usage":null` members
 * the gateway's asking added (OpenAI's; DashScope sends them unasked). Messages streams pass unchanged.
 */
function relayedBytes(c: Case, recordedFile: string): string | undefined {
  // A file that ends without the last event's blank line: the client's stream has it.
  const recorded = recordedFile.endsWith('\n\n') ? recordedFile : recordedFile.replace(/\n?$/, '\n\n');
  if (c.path === MESSAGES) return recorded;
  if (!/^(modela|modelc)\//.test(c.fixture)) return undefined; // modelb's usage chunks are re-serialised
  const unaskedNulls = c.fixture.startsWith('modelc/');
  return recorded
    .split(/(?<=\n\n)/)
    .filter((event) => !/^data: \{.*"choices":\[\],.*"usage":\{/.test(event))
    .map((event) => (unaskedNulls ? event : event.replace('"usage":null,', '')))
    .join('');
}

async function checkCase(t: Test, gw: TestGateway, c: Case): Promise<void> {
  const id = newId(c.fixture);
  const res = await postJson(`${gw.url}${c.path}`, bodyFor(c), gw.key, {
    'x-request-id': id,
    'x-fixture': c.fixture,
    ...VERSION,
  });
  t.equal(res.status, 200, 'answered 200');
  const recorded = readFixture(c.fixture).toString('utf8');
  if (c.stream) {
    t.equal(streamedText(res.text), streamedText(recorded), 'the client gets every word the vendor sent');
    const events = parseSse(res.text);
    if (c.path === CHAT) t.equal(events.at(-1)?.data, '[DONE]', 'and the end of the stream');
    else t.equal(events.at(-1)?.event, 'message_stop', 'and the end of the stream');
    const relayed = relayedBytes(c, recorded);
    if (relayed !== undefined)
      t.equal(res.text, relayed, 'the vendor’s own bytes, less only the usage it was asked for');
  } else {
    t.equal(res.text, recorded, 'the client gets the vendor’s bytes, unchanged');
  }
  const records = await usageOf(gw, id);
  t.equal(records.length, 1, 'one usage record');
  t.match(records[0], { ...c.record, estimated: false, outcome: 'ok' }, 'metered as the vendor bills');
  t.equal(records[0]?.cost_micros, c.cost_micros, 'cost in micro-units');
}

void t.test('recorded vendor responses, replayed through the gateway', async (t) => {
  const replay = await startReplayUpstream(t, answerFor);
  const gw = await startTestGateway(t, (doc) => pointAt(doc, replay));
  for (const c of CASES) await t.test(c.fixture, (t) => checkCase(t, gw, c));

  await t.test(
    'modelb: the gateway asks for stream usage and strips what the client did not ask for',
    async (t) => {
      const id = newId('modelb-strip');
      const fixture = 'modelb/stream-cumulative-usage.sse';
      const res = await postJson(
        `${gw.url}${CHAT}`,
        { model: 'modelb-3.5-flash', stream: true, messages: [{ role: 'user', content: 'hi' }] },
        gw.key,
        { 'x-request-id': id, 'x-fixture': fixture },
      );
      const sent = JSON.parse(replay.requests.find((r) => r.headers['x-request-id'] === id)!.body) as Record<
        string,
        unknown
      >;
      t.strictSame(sent.stream_options, { include_usage: true }, 'asked upstream');
      const chunks = parseSse(res.text).filter((e) => e.data !== '[DONE]');
      t.equal(
        chunks.filter((e) => 'usage' in (JSON.parse(e.data) as object)).length,
        0,
        'no usage reaches the client',
      );
    },
  );

  await t.test('video: the record bills what the vendor says it made, not what was asked', async (t) => {
    const cases = [
      // Asked 720P for 5 s; Wan made 10 s at SR 720 (its `duration`, as the 2.6 models report it).
      {
        protocol: 'native-a' as const,
        body: videoBody('videoa-1.1-t2v', '', '720P', 5),
        record: { video_seconds: 10, resolution: '720P', cost_micros: 1_000_000 },
      },
      // Asked 720p for 5 s; Seedance made 2 s at 480p, billed in its tokens.
      {
        protocol: 'native-b' as const,
        body: videoBody(VIDEOB_MODEL, '', '720P', 5),
        record: { video_seconds: 2, resolution: '480p', completion_tokens: 19845, cost_micros: 198_450 },
      },
    ];
    for (const c of cases) {
      const res = await submitVideo(gw, c.protocol, c.body);
      t.equal(res.status, 200, `${c.protocol}: submitted`);
      const id = PROTOCOLS[c.protocol].taskId(res.body);
      await untilFinished(gw, c.protocol, id);
      const [record] = await usageOf(gw, id);
      t.match(record, { endpoint: 'video', estimated: false, ...c.record }, `${c.protocol}: billed as made`);
    }
  });
});
