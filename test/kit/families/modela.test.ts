/**
 * The plugin kit for `modela` (OpenAI Chat Completions, Responses and Embeddings): its golden answers and
 * what each is metered as.
 */
import t from 'tap';
import { runChatFamilyKit, type ChatCase } from '../chat-suite';
import { bytesOf, golden, recorded } from '../fake-upstream';

const ERROR_SHAPE = () => ({ error: { message: String, type: String } });

const cases: readonly ChatCase[] = [
  {
    answer: recorded('modela/json.json'),
    metered: { prompt_tokens: 16, completion_tokens: 363, total_tokens: 379, estimated: false },
  },
  { answer: golden('modela/json-no-usage.json'), metered: { estimated: true } },
  {
    // Usage rides on a `choices: []` chunk before `[DONE]`.
    answer: recorded('modela/stream-include-usage.sse'),
    metered: {
      prompt_tokens: 14,
      completion_tokens: 47,
      total_tokens: 61,
      estimated: false,
      outcome: 'ok',
    },
  },
  { answer: golden('modela/stream-no-usage.sse'), metered: { estimated: true, outcome: 'ok' } },
  { answer: golden('modela/stream-cut.sse'), metered: { estimated: true, outcome: 'upstream_cut' } },
  // An error sent after HTTP 200, in the stream: relayed, and the call metered as an upstream error.
  { answer: golden('modela/stream-error.sse'), metered: { estimated: true, outcome: 'vendor_error' } },
  { answer: golden('modela/error-400.json', 400) },
  { answer: golden('modela/error-401.json', 401) },
  {
    answer: golden('modela/error-429.json', 429, {
      'retry-after': '20',
      'x-ratelimit-remaining-tokens': '0',
    }),
  },
  { answer: golden('modela/error-500.json', 500) },
];

void runChatFamilyKit(t, { plugin: 'modela', api: 'chat', errorShape: ERROR_SHAPE, cases });

// OpenAI's own Responses answers (test/kit/fixtures/responses/, recorded), relayed as they came.
const responsesCases: readonly ChatCase[] = [
  {
    answer: golden('responses/json-text.json'),
    metered: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14, estimated: false },
  },
  {
    // Reasoning counted inside the output tokens, as the API reports it.
    answer: golden('responses/json-reasoning.json'),
    metered: { prompt_tokens: 865, completion_tokens: 163, reasoning_tokens: 128, estimated: false },
  },
  {
    answer: golden('modela/responses-stream-text.sse'),
    metered: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14, estimated: false, outcome: 'ok' },
  },
  {
    answer: golden('modela/responses-stream-function-call.sse'),
    metered: { prompt_tokens: 45, completion_tokens: 25, total_tokens: 70, estimated: false, outcome: 'ok' },
  },
  // The failure the API sends after HTTP 200: the `error` event and `response.failed`, relayed.
  // It failed before a word: nothing was delivered, and nothing is estimated.
  {
    answer: golden('modela/responses-stream-error.sse'),
    metered: { estimated: true, completion_tokens: 0, outcome: 'vendor_error' },
  },
  {
    answer: golden('modela/responses-stream-cut.sse'),
    metered: { estimated: true, outcome: 'upstream_cut' },
  },
  { answer: golden('modela/error-400.json', 400) },
  { answer: golden('modela/error-429.json', 429, { 'retry-after': '20' }) },
  { answer: golden('modela/error-500.json', 500) },
];

void runChatFamilyKit(t, {
  plugin: 'modela',
  api: 'responses',
  errorShape: ERROR_SHAPE,
  cases: responsesCases,
});

const embeddingCases: readonly ChatCase[] = [
  {
    answer: recorded('modela/embeddings.json'),
    metered: { prompt_tokens: 12, completion_tokens: 0, total_tokens: 12, estimated: false },
  },
  // A call over the 300,000 tokens OpenAI takes at once (its recorded refusal).
  { answer: recorded('modela/embeddings-error-max-tokens.json', 400) },
  { answer: golden('modela/error-401.json', 401) },
  { answer: golden('modela/error-429.json', 429, { 'retry-after': '20' }) },
  { answer: golden('modela/error-500.json', 500) },
];

void runChatFamilyKit(t, {
  plugin: 'modela',
  api: 'embeddings',
  errorShape: ERROR_SHAPE,
  cases: embeddingCases,
});

// OpenAI sends all four keys, `param` and `code` null where they do not apply.
void t.test("each error body has OpenAI's four keys", (t) => {
  for (const { answer } of [...cases, ...embeddingCases].filter((c) => c.answer.status >= 400)) {
    const body = JSON.parse(bytesOf(answer).toString('utf8')) as { error: object };
    t.strictSame(Object.keys(body.error), ['message', 'type', 'param', 'code'], answer.file);
  }
  t.end();
});
