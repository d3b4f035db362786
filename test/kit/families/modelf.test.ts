/**
 * The plugin kit for `modelf`, the worked example of a family whose vendor speaks another API than its
 * clients (test/fixtures/plugins/modelf: OpenAI chat completions in front of a Cohere-v2-chat-like
 * vendor). Each case serves Cohere's answer and says what the client must get instead (`expect`): the
 * translated body, the translated stream event for event (Cohere's own finish reasons and billed usage
 * carried over), the cut stream ending with the gateway's error, and Cohere's flat error bodies mapped to
 * the contract's shape with Cohere's message.
 */
import 'reflect-metadata';
import t from 'tap';
import '../../fixtures/plugins/modelf';
import { runChatFamilyKit } from '../chat-suite';
import { golden, recorded } from '../fake-upstream';

const client = (file: string, status = 200) => golden(`modelf/client/${file}`, status);

/** Cohere's usage: billed 12 in, 7 out (its `tokens`, 507 and 10, count its own prompt template). */
const BILLED = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19, estimated: false };

void runChatFamilyKit(t, {
  plugin: 'modelf',
  api: 'chat',
  // Cohere's documented error body is `{"message"}`; its v2 answers put an `id` first.
  errorShape: () => ({ id: String, message: String }),
  // Cohere's body: the conversation and `stream` as the client gave them (the kit's are plain text), and
  // never `stream_options`, which only tells the family to write the usage chunk itself.
  upstream: {
    body: ({ client, upstreamModel }) => ({
      model: upstreamModel,
      messages: client.messages,
      stream: client.stream,
      stream_options: undefined,
    }),
  },
  cases: [
    { answer: recorded('modelf/json.json'), expect: client('json.json'), metered: BILLED },
    {
      // The table's fields under Cohere's names, in Cohere's forms; none in OpenAI's spelling.
      answer: recorded('modelf/json.json'),
      request: { top_p: 0.5, stop: 'END', max_tokens: 100 },
      upstream: {
        body: ({ upstreamModel }) => ({
          model: upstreamModel,
          p: 0.5,
          stop_sequences: ['END'],
          max_tokens: 100,
          top_p: undefined,
          stop: undefined,
        }),
      },
      expect: client('json.json'),
      metered: BILLED,
    },
    {
      answer: recorded('modelf/stream.sse'),
      expect: client('stream.sse'),
      metered: { ...BILLED, outcome: 'ok' },
    },
    {
      // The usage chunk is the family's to write: Cohere sends its usage whether asked or not.
      answer: recorded('modelf/stream.sse'),
      request: { stream_options: { include_usage: true } },
      expect: client('stream-usage.sse'),
      metered: { ...BILLED, outcome: 'ok' },
    },
    {
      answer: golden('modelf/stream-max-tokens.sse'),
      expect: client('stream-max-tokens.sse'),
      metered: { ...BILLED, outcome: 'ok' },
    },
    {
      // Cut before message-end: no usage came, so what reached the client is estimated.
      answer: golden('modelf/stream-cut.sse'),
      expect: client('stream-cut.sse'),
      metered: { estimated: true, outcome: 'upstream_cut' },
    },
    {
      // A generation that failed after HTTP 200: message-end says ERROR, and the client gets an error
      // instead of a finish; the vendor's usage still came, so it is metered as billed.
      answer: golden('modelf/stream-error.sse'),
      expect: client('stream-error.sse'),
      metered: { ...BILLED, outcome: 'vendor_error' },
    },
    { answer: golden('modelf/error-400.json', 400), expect: client('error-400.json', 400) },
    { answer: golden('modelf/error-401.json', 401), expect: client('error-401.json', 401) },
    {
      answer: golden('modelf/error-429.json', 429, { 'retry-after': '20' }),
      expect: client('error-429.json', 429),
    },
    { answer: golden('modelf/error-500.json', 500), expect: client('error-500.json', 500) },
  ],
});
