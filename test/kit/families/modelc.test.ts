/**
 * The plugin kit for `modelc` (DashScope compatible mode): reasoning counted inside `completion_tokens`,
 * `reasoning_content` streamed before the answer, usage on a `choices: []` chunk, errors with ids.
 * Its embeddings come in floats only: the gateway encodes the base64 a client asks for.
 */
import t from 'tap';
import { runChatFamilyKit, type ChatCase } from '../chat-suite';
import { golden, recorded } from '../fake-upstream';
import { FLOATS_ASKED, RESPONSES_ON_CHAT } from '../upstream-request';

const ERROR_SHAPE = () => ({
  error: { code: String, param: null, message: String, type: String },
  id: /^chatcmpl-/,
  request_id: String,
});

const CHAT_CASES: readonly ChatCase[] = [
  {
    answer: recorded('modelc/json-reasoning.json'),
    metered: { prompt_tokens: 24, completion_tokens: 1668, reasoning_tokens: 1353, total_tokens: 1692 },
  },
  {
    answer: recorded('modelc/stream-reasoning.sse'),
    metered: {
      prompt_tokens: 24,
      completion_tokens: 1355,
      reasoning_tokens: 1084,
      total_tokens: 1379,
      estimated: false,
      outcome: 'ok',
    },
  },
  { answer: golden('modelc/stream-no-usage.sse'), metered: { estimated: true, outcome: 'ok' } },
  { answer: golden('modelc/stream-cut.sse'), metered: { estimated: true, outcome: 'upstream_cut' } },
  { answer: golden('modelc/error-400.json', 400) },
  { answer: golden('modelc/error-401.json', 401) },
  { answer: golden('modelc/error-429.json', 429) },
  { answer: golden('modelc/error-500.json', 500) },
];

void runChatFamilyKit(t, { plugin: 'modelc', api: 'chat', errorShape: ERROR_SHAPE, cases: CHAT_CASES });

// The same answers to a Responses client: the gateway translates them, the family meters them.
void runChatFamilyKit(t, {
  plugin: 'modelc',
  api: 'responses',
  vendorApi: 'chat',
  errorShape: ERROR_SHAPE,
  upstream: RESPONSES_ON_CHAT,
  cases: CHAT_CASES,
});

void runChatFamilyKit(t, {
  plugin: 'modelc',
  api: 'embeddings',
  errorShape: ERROR_SHAPE,
  cases: [
    {
      answer: recorded('modelc/embeddings-doc-example.json'),
      metered: { prompt_tokens: 184, completion_tokens: 0, total_tokens: 184, estimated: false },
    },
    {
      // base64 asked: DashScope takes only floats, so the gateway encodes them for the client.
      answer: recorded('modelc/embeddings-doc-example.json'),
      request: { encoding_format: 'base64' },
      upstream: FLOATS_ASKED,
      expect: golden('modelc/embeddings-base64.json'),
      metered: { prompt_tokens: 184, estimated: false },
    },
    { answer: golden('modelc/error-400.json', 400) },
    { answer: golden('modelc/error-429.json', 429) },
    { answer: golden('modelc/error-500.json', 500) },
  ],
});
