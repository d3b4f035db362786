/**
 * The plugin kit for `modeld` (the Messages API): named events ending with `message_stop`, the final
 * output count on `message_delta` (message_start's is a placeholder), and the vendor's typed errors.
 */
import t from 'tap';
import { runChatFamilyKit, type ChatCase } from '../chat-suite';
import { golden, recorded } from '../fake-upstream';
import type { UpstreamExpectation } from '../upstream-request';

const ERROR_SHAPE = () => ({
  type: 'error',
  error: { type: /_error$/, message: String },
  request_id: /^req_/,
});

/**
 * The entry names the vendor's own version header, which the family sends beside its `x-api-key`: the kit
 * derives both from the options, and the client's `modeld-version` cannot stand in for it.
 */
const OPTIONS = { version_header: { name: 'anthropic-version' } };

/** The Responses translator's messages body for the kit's request: its `input` as one user turn. */
const TRANSLATED: UpstreamExpectation = {
  body: ({ client, upstreamModel, stream }) => ({
    model: upstreamModel,
    messages: [{ role: 'user', content: [{ type: 'text', text: client.input }] }],
    stream,
  }),
};

const MESSAGES_CASES: readonly ChatCase[] = [
  {
    answer: recorded('modeld/json.json'),
    metered: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  },
  {
    answer: recorded('modeld/stream-text.sse'),
    metered: { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17, estimated: false, outcome: 'ok' },
  },
  {
    // Thinking tokens are inside output_tokens.
    answer: recorded('modeld/stream-thinking.sse'),
    metered: {
      prompt_tokens: 69,
      completion_tokens: 53,
      total_tokens: 122,
      estimated: false,
      outcome: 'ok',
    },
  },
  {
    // Cut before message_delta: the prompt is known from message_start, the output only estimated.
    answer: golden('modeld/stream-cut-before-usage.sse'),
    metered: { prompt_tokens: 11, estimated: true, outcome: 'upstream_cut' },
  },
  {
    // Cut after message_delta: the vendor's final counts arrived, only message_stop is missing.
    answer: golden('modeld/stream-cut-after-usage.sse'),
    metered: { prompt_tokens: 11, completion_tokens: 6, estimated: false, outcome: 'upstream_cut' },
  },
  {
    // The vendor's documented overload, sent after HTTP 200 as an `error` event.
    answer: golden('modeld/stream-error-overloaded.sse'),
    metered: { prompt_tokens: 11, estimated: true, outcome: 'vendor_error' },
  },
  { answer: golden('modeld/error-400.json', 400) },
  { answer: golden('modeld/error-401.json', 401) },
  { answer: golden('modeld/error-429.json', 429, { 'retry-after': '20' }) },
  { answer: golden('modeld/error-500.json', 500) },
];

void runChatFamilyKit(t, {
  plugin: 'modeld',
  options: OPTIONS,
  api: 'messages',
  errorShape: ERROR_SHAPE,
  cases: MESSAGES_CASES,
});

// The same answers to a Responses client: the gateway translates them, the family meters them.
void runChatFamilyKit(t, {
  plugin: 'modeld',
  options: OPTIONS,
  api: 'responses',
  vendorApi: 'messages',
  errorShape: ERROR_SHAPE,
  upstream: TRANSLATED,
  cases: MESSAGES_CASES,
});
