/**
 * Whole chat completions as Responses, read through the chat family's own reader as the endpoint will
 * wire it: text, reasoning, parallel tool calls, refusals, a cut-short answer, usage (the family's
 * figures, or its estimate), and every member OpenAI's recorded Responses have
 * (test/kit/fixtures/responses/).
 */
import 'reflect-metadata';
import t from 'tap';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import type { JsonObject } from '../../../core/kit/json';
import { ChatResponseReader } from '../../../plugins/upstreams/openai-compatible/chat-reader';
import { responsesFromChat } from '../../../plugins/translators/responses-chat';
import {
  fixtureJson,
  fixtureText,
  goldenJson,
  MODEL,
  missingMembers,
  NOT_WRITTEN,
  checkTextAnswer,
} from './responses-helpers';

const CLIENT_BODY: JsonObject = { model: MODEL.id, input: 'hi' };

/** The Response for a chat completion, and the usage metered, as the endpoint gets them. */
function answer(completion: JsonObject, body: JsonObject = CLIENT_BODY) {
  const reader = responsesFromChat(new ChatResponseReader(false, false, () => 5), body, MODEL);
  return reader.json(structuredClone(completion));
}

/** A chat completion with its first choice's `message` and `finish_reason` replaced. */
const withChoice = (message: JsonObject, finish: string | null): JsonObject => ({
  ...fixtureJson('fixtures/modela/json.json'),
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
});

t.test("a text answer: one message item, OpenAI's members, the metered usage", (t) => {
  const { usage, replace } = answer(fixtureJson('fixtures/modela/json.json'));
  t.strictSame(usage, { promptTokens: 16, completionTokens: 363, totalTokens: 379, estimated: false });
  checkTextAnswer(t, replace, MODEL.id, [16, 363]);
  t.end();
});

t.test('the request settings are echoed as the API returns them', (t) => {
  const body = {
    model: MODEL.id,
    input: 'hi',
    instructions: 'be brief',
    max_output_tokens: 100,
    temperature: 0.3,
    top_p: 0.5,
    parallel_tool_calls: false,
    tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
    tool_choice: 'required',
    reasoning: { effort: 'low', summary: 'auto' },
    text: { format: { type: 'json_object' } },
    metadata: { k: 'v' },
    user: 'u',
  };
  const { replace } = answer(fixtureJson('fixtures/modela/json.json'), body);
  t.match(replace, {
    instructions: 'be brief',
    max_output_tokens: 100,
    temperature: 0.3,
    top_p: 0.5,
    parallel_tool_calls: false,
    tools: body.tools,
    tool_choice: 'required',
    reasoning: { effort: 'low', summary: 'auto' },
    text: { format: { type: 'json_object' } },
    metadata: { k: 'v' },
    user: 'u',
  });
  t.end();
});

t.test("a reasoning answer: the vendor's reasoning as reasoning_text before the message", (t) => {
  const completion = fixtureJson('fixtures/modelc/json-reasoning.json');
  const { usage, replace } = answer(completion);
  const message = (completion.choices as JsonObject[])[0]!.message as JsonObject;
  t.match(replace.output, [
    {
      id: /^rs_/,
      type: 'reasoning',
      summary: [],
      content: [{ type: 'reasoning_text', text: message.reasoning_content }],
    },
    { id: /^msg_/, type: 'message', content: [{ type: 'output_text', text: message.content }] },
  ]);
  t.equal((replace.usage as JsonObject).output_tokens, usage.completionTokens);
  t.match(replace.usage, { output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 } });
  t.same(
    missingMembers(replace, goldenJson('json-reasoning.json'), NOT_WRITTEN),
    [],
    "every member of OpenAI's reasoning answer but its sealed reasoning",
  );
  t.end();
});

t.test('parallel tool calls: one function_call item each, in order', async (t) => {
  // The recorded parallel-calls stream, assembled into its chat.completion by the openai SDK itself.
  const lines = fixtureText('fixtures/modela/stream-parallel-tools.sse')
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => l.slice('data: '.length))
    .join('\n');
  const completion = await ChatCompletionStream.fromReadableStream(
    new Response(lines).body!,
  ).finalChatCompletion();
  const { replace } = answer({
    ...(completion as unknown as JsonObject),
    usage: { prompt_tokens: 149, completion_tokens: 60, total_tokens: 209 },
  });
  t.match(replace, {
    status: 'completed',
    output: [
      {
        id: /^fc_/,
        type: 'function_call',
        status: 'completed',
        call_id: 'call_lQnnsesjFMWMQ5IeWPHzR4th',
        name: 'GetWeatherArgs',
        arguments: '{"city": "Edinburgh", "country": "UK", "units": "c"}',
      },
      {
        type: 'function_call',
        call_id: 'call_2xjOUgaCdiwAcl9ZBL9LyMUU',
        name: 'get_stock_price',
        arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
      },
    ],
    usage: { input_tokens: 149, output_tokens: 60, total_tokens: 209 },
  });
  t.equal((replace.output as JsonObject[]).length, 2, 'no empty message beside the calls');
  const ids = (replace.output as JsonObject[]).map((item) => item.id);
  t.equal(new Set(ids).size, 2, 'item ids are unique');
});

t.test('a cut-short answer is incomplete, naming why; its last item is incomplete', (t) => {
  const cases: [string, string][] = [
    ['length', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
  ];
  for (const [finish, reason] of cases) {
    const { replace } = answer(withChoice({ content: 'Once upon', reasoning_content: 'plan' }, finish));
    t.match(
      replace,
      {
        status: 'incomplete',
        completed_at: null,
        incomplete_details: { reason },
        output: [{ type: 'reasoning' }, { type: 'message', status: 'incomplete' }],
      },
      finish,
    );
  }
  t.end();
});

t.test('a refusal is a refusal part; an empty answer is an empty message', (t) => {
  t.match(answer(withChoice({ content: null, refusal: 'I cannot help' }, 'stop')).replace.output, [
    { type: 'message', content: [{ type: 'refusal', refusal: 'I cannot help' }] },
  ]);
  t.match(answer(withChoice({ content: '' }, 'stop')).replace.output, [
    { type: 'message', content: [{ type: 'output_text', text: '' }] },
  ]);
  t.end();
});

t.test("an answer without usage gets the family's estimate, in the record and the Response", (t) => {
  const completion = withChoice({ content: '12345678' }, 'stop');
  delete completion.usage;
  const { usage, replace } = answer(completion);
  t.strictSame(usage, { promptTokens: 5, completionTokens: 2, estimated: true });
  t.match(replace.usage, { input_tokens: 5, output_tokens: 2, total_tokens: 7 });
  t.end();
});

t.test('the ids derive from the chat id, alike for every answer of one completion', (t) => {
  const a = answer(fixtureJson('fixtures/modela/json.json')).replace;
  const b = answer(fixtureJson('fixtures/modela/json.json')).replace;
  const chatId = String(fixtureJson('fixtures/modela/json.json').id).replace(/^chatcmpl-/, '');
  t.equal(a.id, `resp_${chatId}`);
  t.equal((a.output as JsonObject[])[0]!.id, `msg_${chatId}_0`);
  t.equal(a.id, b.id);
  t.end();
});
