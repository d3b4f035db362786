/**
 * The plugin kit for `modelb` (Gemini's OpenAI-compatible endpoint): its thinking shows only in
 * `total_tokens`, its stream usage rides on every chunk and is cumulative, its errors are google.rpc.
 * Its embeddings carry no usage (the gateway estimates it) and come in floats only (the gateway encodes
 * the base64 a client asks for).
 */
import t from 'tap';
import { runChatFamilyKit, type ChatCase } from '../chat-suite';
import { golden, recorded } from '../fake-upstream';
import { FLOATS_ASKED, RESPONSES_ON_CHAT } from '../upstream-request';

const ERROR_SHAPE = (status: number) => ({ error: { code: status, message: String, status: /^[A-Z_]+$/ } });

const CHAT_CASES: readonly ChatCase[] = [
  {
    // 30 thinking tokens hide in total_tokens (49 = 17 + 2 + 30): billed as output.
    answer: recorded('modelb/json-thinking-hidden-a.json'),
    metered: { prompt_tokens: 17, completion_tokens: 32, reasoning_tokens: 30, total_tokens: 49 },
  },
  {
    // The last chunk's figures count, never their sum.
    answer: recorded('modelb/stream-cumulative-usage.sse'),
    metered: {
      prompt_tokens: 12,
      completion_tokens: 159,
      total_tokens: 171,
      estimated: false,
      outcome: 'ok',
    },
  },
  { answer: golden('modelb/stream-no-usage.sse'), metered: { estimated: true, outcome: 'ok' } },
  {
    // Cut after two chunks: the last cumulative figures the vendor sent are what it reported.
    answer: golden('modelb/stream-cut.sse'),
    metered: { prompt_tokens: 12, completion_tokens: 22, estimated: false, outcome: 'upstream_cut' },
  },
  { answer: golden('modelb/error-400.json', 400) },
  { answer: golden('modelb/error-401.json', 401) },
  { answer: golden('modelb/error-429.json', 429) },
  { answer: golden('modelb/error-500.json', 500) },
];

void runChatFamilyKit(t, { plugin: 'modelb', api: 'chat', errorShape: ERROR_SHAPE, cases: CHAT_CASES });

// The same answers to a Responses client: the gateway translates them, the family meters them.
void runChatFamilyKit(t, {
  plugin: 'modelb',
  api: 'responses',
  vendorApi: 'chat',
  errorShape: ERROR_SHAPE,
  upstream: RESPONSES_ON_CHAT,
  cases: CHAT_CASES,
});

void runChatFamilyKit(t, {
  plugin: 'modelb',
  api: 'embeddings',
  errorShape: ERROR_SHAPE,
  cases: [
    // No usage: estimated from the kit's 39-character input, about four characters a token.
    {
      answer: golden('modelb/embeddings-no-usage.json'),
      metered: { prompt_tokens: 10, completion_tokens: 0, estimated: true },
    },
    {
      // base64 asked: the vendor is asked for floats, the client gets them encoded as OpenAI does.
      answer: golden('modelb/embeddings-no-usage.json'),
      request: { encoding_format: 'base64' },
      upstream: FLOATS_ASKED,
      expect: golden('modelb/embeddings-base64.json'),
      metered: { prompt_tokens: 10, estimated: true },
    },
    { answer: golden('modelb/error-400.json', 400) },
    { answer: golden('modelb/error-429.json', 429) },
    { answer: golden('modelb/error-500.json', 500) },
  ],
});
