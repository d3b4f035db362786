/**
 * Whole messages as Responses, read through the messages family's own reader as the endpoint will wire
 * it: text, thinking (sealed when asked), text and tool calls, each stop reason's status, usage (the
 * family's figures, cache reads among them, or its estimate), and every member OpenAI's recorded
 * Responses have (test/kit/fixtures/responses/).
 */
import 'reflect-metadata';
import t from 'tap';
import type { JsonObject } from '../../../core/kit/json';
import { checkTextAnswer, fixtureJson, goldenJson, missingMembers, NOT_WRITTEN } from './responses-helpers';
import { MESSAGES_MODEL, messagesReader } from './responses-messages-helpers';

const CLIENT_BODY: JsonObject = { model: MESSAGES_MODEL.id, input: 'hi' };

/** The Response for a message, and the usage metered, as the endpoint gets them. */
const answer = (message: JsonObject, body: JsonObject = CLIENT_BODY) =>
  messagesReader(body, 5).json(structuredClone(message));

const RECORDED = (): JsonObject => fixtureJson('fixtures/modeld/json.json');

/** The recorded message with its content and stop reason replaced. */
const withContent = (content: JsonObject[], stopReason = 'end_turn'): JsonObject => ({
  ...RECORDED(),
  content,
  stop_reason: stopReason,
});

t.test("a text answer: one message item, OpenAI's members, the metered usage", (t) => {
  const { usage, replace } = answer(RECORDED());
  t.strictSame(usage, { promptTokens: 10, completionTokens: 5, estimated: false });
  checkTextAnswer(t, replace, MESSAGES_MODEL.id, [10, 5]);
  t.equal(replace.id, 'resp_01TestTextResponse', 'named after the message');
  t.match(replace.output, [{ id: 'msg_01TestTextResponse_0', content: [{ text: 'Hello!' }] }]);
  t.end();
});

const THINKING: JsonObject = { type: 'thinking', thinking: 'Paris, then.', signature: 'c2lnbmVk' };
const CALL: JsonObject = { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } };

t.test('thinking, text and a call: reasoning, message, function_call, as OpenAI writes them', (t) => {
  const message = withContent(
    [THINKING, { type: 'text', text: 'Let me ' }, { type: 'text', text: 'look.' }, CALL],
    'tool_use',
  );
  const settings = { reasoning: { effort: 'low' }, instructions: 'be brief', tool_choice: 'required' };
  const { replace } = answer(message, {
    ...CLIENT_BODY,
    ...settings,
    include: ['reasoning.encrypted_content'],
  });
  t.match(replace, { ...settings, reasoning: { summary: null } }, 'the settings echoed (response-object.ts)');
  t.strictSame(replace.output, [
    {
      id: 'rs_01TestTextResponse_0',
      type: 'reasoning',
      encrypted_content: 'c2lnbmVk',
      summary: [],
      content: [{ type: 'reasoning_text', text: 'Paris, then.' }],
    },
    {
      id: 'msg_01TestTextResponse_1',
      type: 'message',
      status: 'completed',
      content: [
        { type: 'output_text', annotations: [], logprobs: [], text: 'Let me ' },
        { type: 'output_text', annotations: [], logprobs: [], text: 'look.' },
      ],
      role: 'assistant',
    },
    {
      id: 'fc_01TestTextResponse_2',
      type: 'function_call',
      status: 'completed',
      arguments: '{"city":"Paris"}',
      call_id: 'toolu_1',
      name: 'get_weather',
    },
  ]);
  t.equal(replace.status, 'completed', 'a tool_use stop completes the Response');
  const golden = goldenJson('json-reasoning.json');
  const ours = replace.output as JsonObject[];
  const theirs = golden.output as JsonObject[];
  const ignored = new Set([...NOT_WRITTEN].filter((m) => m !== 'encrypted_content'));
  // OpenAI's reasoning item carries a summary it wrote; ours has none to write (output-items.ts).
  t.same(missingMembers(ours[0], theirs[0], new Set([...ignored, 'summary'])), [], "OpenAI's reasoning item");
  t.same(missingMembers(ours[1], theirs[1], ignored), [], "OpenAI's message item");
  t.end();
});

t.test('the signature is sealed only when the client asked for it', (t) => {
  const { replace } = answer(withContent([THINKING, { type: 'text', text: 'ok' }]));
  const [reasoning] = replace.output as JsonObject[];
  t.notOk('encrypted_content' in reasoning!);
  t.end();
});

t.test('each stop reason: the status and incomplete reason the API gives', (t) => {
  const cases: readonly [string, JsonObject][] = [
    ['end_turn', { status: 'completed', incomplete_details: null }],
    ['stop_sequence', { status: 'completed', incomplete_details: null }],
    ['tool_use', { status: 'completed', incomplete_details: null }],
    ['pause_turn', { status: 'completed', incomplete_details: null }],
    ['max_tokens', { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }],
    [
      'model_context_window_exceeded',
      { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    ],
    ['refusal', { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }],
  ];
  for (const [stopReason, expected] of cases) {
    const { replace } = answer(withContent([{ type: 'text', text: 'cut' }], stopReason));
    t.match(replace, expected, stopReason);
    const completed = replace.status === 'completed';
    t.match(replace.output, [{ status: completed ? 'completed' : 'incomplete' }], `${stopReason}: the item`);
    t.equal(replace.completed_at === null, !completed, `${stopReason}: completed_at`);
  }
  t.end();
});

t.test('an answer with no text and no call is an empty message; redacted thinking is not shown', (t) => {
  const { replace } = answer(withContent([{ type: 'redacted_thinking', data: 'sealed' }]));
  t.match(replace.output, [{ type: 'message', content: [{ type: 'output_text', text: '' }] }]);
  t.equal((replace.output as JsonObject[]).length, 1);
  t.end();
});

t.test('usage: cache reads as cached tokens; an answer without usage is estimated', (t) => {
  const cached = { ...RECORDED(), usage: { input_tokens: 4, cache_read_input_tokens: 6, output_tokens: 2 } };
  const { usage, replace } = answer(cached);
  t.match(usage, { promptTokens: 10, cacheReadTokens: 6, completionTokens: 2 });
  t.match(replace.usage, { input_tokens: 10, input_tokens_details: { cached_tokens: 6 }, output_tokens: 2 });
  const bare = { ...RECORDED() };
  delete bare.usage;
  const estimated = answer(bare);
  t.match(estimated.usage, { promptTokens: 5, estimated: true });
  t.match(estimated.replace.usage, { input_tokens: 5 });
  t.end();
});
