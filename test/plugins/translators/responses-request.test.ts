/**
 * The Responses request as chat completions: every field of the API's rules decided (sent on, kept for
 * the echo, or refused with the contract's 400 naming it), the conversation's items and parts, tools and
 * tool choice, the formats, and the 400s of a malformed request. Expectations are written out here from
 * the OpenAI API's shapes (the `openai` SDK's ResponseCreateParams and chat's ChatCompletionCreateParams),
 * not read from the translation's tables.
 */
import 'reflect-metadata';
import t from 'tap';
import type { JsonObject } from '../../../core/kit/json';
import { ResponsesStreamDialect } from '../../../plugins/apis/responses';
import { chatBodyForResponses, responsesFieldMessage } from '../../../plugins/translators/responses-chat';
import { Errors } from '../../../core/kit/plugin';
import {
  CALL_TURN_ITEMS,
  checkEveryField,
  type FieldCases,
  MODEL,
  refused,
  SAMPLING_FIELD_CASES,
  SHARED_FIELD_CASES,
  SHARED_REFUSALS,
} from './responses-helpers';

const base = { model: MODEL.id, input: 'hi' };
const chatOf = (extra: JsonObject): JsonObject => chatBodyForResponses({ ...base, ...extra }, MODEL);
const hiMessages = [{ role: 'user', content: 'hi' }];

/**
 * Every field of the API's rules, with a valid value and what it becomes. A field added to the rules
 * without a row here fails the coverage test below: each must be decided.
 */
const FIELDS: FieldCases = {
  ...SHARED_FIELD_CASES,
  ...SAMPLING_FIELD_CASES,
  instructions: [
    ['be brief', { sent: { messages: [{ role: 'system', content: 'be brief' }, ...hiMessages] } }],
  ],
  parallel_tool_calls: [[false, { sent: { parallel_tool_calls: false } }]],
  tools: [
    [
      [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' }, strict: true }],
      {
        sent: {
          tools: [
            {
              type: 'function',
              function: { name: 'f', description: 'd', parameters: { type: 'object' }, strict: true },
            },
          ],
        },
      },
    ],
    [[{ type: 'web_search' }], { refused: 'tools[0]' }],
  ],
  tool_choice: [
    ['required', { sent: { tool_choice: 'required' } }],
    [
      { type: 'function', name: 'f' },
      { sent: { tool_choice: { type: 'function', function: { name: 'f' } } } },
    ],
    [{ type: 'file_search' }, { refused: 'tool_choice' }],
  ],
  reasoning: [
    [{ effort: 'low', summary: 'auto' }, { sent: { reasoning_effort: 'low' } }],
    [{ effort: 'minimal' }, { refused: 'reasoning.effort' }],
    [{ effort: 'high', mode: 'pro' }, { refused: 'reasoning.mode' }],
  ],
  text: [
    [{ format: { type: 'text' } }, { sent: {} }],
    [{ format: { type: 'json_object' } }, { sent: { response_format: { type: 'json_object' } } }],
    [
      {
        format: { type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true },
        verbosity: 'low',
      },
      {
        sent: {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'w', schema: { type: 'object' }, strict: true },
          },
          verbosity: 'low',
        },
      },
    ],
    [{ format: { type: 'json_schema', schema: {} } }, { refused: 'text.format', code: 'invalid_request' }],
  ],
  user: [['u-1', { sent: { user: 'u-1' } }]],
  safety_identifier: [['s-1', { sent: { safety_identifier: 's-1' } }]],
  prompt_cache_key: [['k', { sent: { prompt_cache_key: 'k' } }]],
  prompt_cache_retention: [['24h', { sent: { prompt_cache_retention: '24h' } }]],
  service_tier: [['flex', { sent: { service_tier: 'flex' } }]],
  include: [
    [[], { sent: {} }],
    // Taken, as Codex asks it with `store: false`; chat seals no reasoning, so none is written.
    [['reasoning.encrypted_content'], { sent: {} }],
    [['reasoning.encrypted_content', 'message.output_text.logprobs'], { refused: 'include[1]' }],
  ],
};

t.test('every field of the API is decided: sent on, kept for the echo, or refused naming it', (t) => {
  checkEveryField(t, FIELDS, chatOf, { model: MODEL.id, messages: hiMessages });
  t.end();
});

t.test('a field the API does not define is refused, not passed to chat', (t) => {
  for (const field of ['messages', 'n', 'max_tokens', 'stop', 'frequency_penalty', 'constructor']) {
    t.throws(() => chatOf({ [field]: 1 }), refused(field), field);
  }
  t.strictSame(
    chatOf({ temperature: null, store: null }),
    { model: MODEL.id, messages: hiMessages },
    'null is absent',
  );
  t.end();
});

t.test('the input items become chat messages, calls joined to their assistant message', (t) => {
  const chat = chatOf({
    instructions: 'sys',
    input: [
      { role: 'developer', content: 'dev' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: 'https://x/i.png', detail: 'low' },
        ],
      },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'sealed' },
      ...CALL_TURN_ITEMS,
      { type: 'function_call', call_id: 'c3', name: 'f', arguments: '{}' },
      { role: 'assistant', content: 'done' },
      {
        role: 'user',
        content: [{ type: 'input_file', file_data: 'data:application/pdf;base64,AA', filename: 'a.pdf' }],
      },
    ],
  });
  t.strictSame(chat.messages, [
    { role: 'system', content: 'sys' },
    { role: 'system', content: 'dev' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'https://x/i.png', detail: 'low' } },
      ],
    },
    {
      role: 'assistant',
      content: 'calling',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'c2', type: 'function', function: { name: 'g', arguments: '{"a":1}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'one' },
    { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'two' }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c3', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    { role: 'assistant', content: 'done' },
    {
      role: 'user',
      content: [{ type: 'file', file: { file_data: 'data:application/pdf;base64,AA', filename: 'a.pdf' } }],
    },
  ]);
  const refusal = chatOf({ input: [{ role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] }] });
  t.strictSame(
    refusal.messages,
    [{ role: 'assistant', content: '', refusal: 'no' }],
    'a refusal keeps its member',
  );
  t.end();
});

t.test('an item or part chat has no counterpart for is refused, naming its path', (t) => {
  const input = (...items: JsonObject[]) => ({ input: items });
  const cases: (readonly [JsonObject, string])[] = [
    ...SHARED_REFUSALS,
    [
      input({ role: 'user', content: [{ type: 'input_image', image_url: 'https://x', detail: 'original' }] }),
      'input[0].content[0].detail',
    ],
    [
      input({ role: 'user', content: [{ type: 'input_file', file_url: 'https://x/a.pdf' }] }),
      'input[0].content[0].file_url',
    ],
    [
      input({
        type: 'function_call_output',
        call_id: 'c',
        output: [{ type: 'input_image', image_url: 'https://x' }],
      }),
      'input[0].output[0]',
    ],
    [
      { tools: [{ type: 'function', name: 'f', output_schema: { type: 'object' } }] },
      'tools[0].output_schema',
    ],
    [{ text: { format: { type: 'grammar' } } }, 'text.format'],
  ];
  for (const [extra, field] of cases) t.throws(() => chatOf(extra), refused(field), field);
  t.strictSame(
    chatOf({
      tools: [
        {
          type: 'function',
          name: 'f',
          parameters: null,
          strict: null,
          defer_loading: false,
          output_schema: null,
        },
      ],
    }).tools,
    [{ type: 'function', function: { name: 'f' } }],
    "a member at the API's default asks nothing",
  );
  t.end();
});

t.test('a malformed request is a 400 naming the field', (t) => {
  const invalid = (body: JsonObject, field: string) =>
    t.throws(() => chatBodyForResponses(body, MODEL), refused(field, 'invalid_request'), field);
  invalid({ model: MODEL.id }, 'input');
  invalid({ ...base, input: [] }, 'input');
  invalid({ ...base, input: '' }, 'input');
  invalid({ ...base, input: [7] }, 'input[0]');
  invalid({ ...base, input: [{ role: 'critic', content: 'x' }] }, 'input[0]');
  invalid({ ...base, input: [{ type: 'function_call', name: 'f' }] }, 'input[0]');
  invalid({ ...base, input: [{ role: 'user', content: [{ type: 'audio' }] }] }, 'input[0].content[0].type');
  invalid({ ...base, temperature: 3 }, 'temperature');
  invalid({ ...base, tools: [{ type: 'function' }] }, 'tools[0].name');
  invalid({ ...base, reasoning: { summary: 'long' } }, 'reasoning.summary');
  invalid(
    { ...base, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
    'metadata',
  );
  t.end();
});

t.test("the chat family's 400 names the client's field", (t) => {
  const cases: [string, string][] = [
    [
      "field 'max_tokens' must be at most 8192 for model 'm'",
      "field 'max_output_tokens' must be at most 8192 for model 'm'",
    ],
    [
      "field 'max_completion_tokens' is not supported by model 'm'",
      "field 'max_output_tokens' is not supported by model 'm'",
    ],
    [
      "field 'reasoning_effort' is not supported by model 'm'",
      "field 'reasoning.effort' is not supported by model 'm'",
    ],
    ["field 'response_format' must be an object", "field 'text.format' must be an object"],
    [
      "field 'messages[2].content[0]' is not a valid 'image_url' part",
      "field 'input' is not a valid 'image_url' part",
    ],
    ["field 'tools[1].function.name' is required", "field 'tools[1].name' is required"],
    ["field 'temperature' must be a number from 0 to 2", "field 'temperature' must be a number from 0 to 2"],
  ];
  for (const [chat, responses] of cases) t.equal(responsesFieldMessage(chat), responses, chat);
  t.end();
});

t.test("the stream dialect: a comment ping, and the API's error event in both shapes", (t) => {
  t.equal(ResponsesStreamDialect.ping, ': ping\n\n');
  const frame = ResponsesStreamDialect.errorFrame(Errors.streamCut('modela-main'));
  const [head, data] = frame.split('\n');
  t.equal(head, 'event: error');
  t.ok(frame.endsWith('\n\n'));
  const message = 'upstream modela-main ended the stream before it was complete';
  t.strictSame(JSON.parse(data!.slice('data: '.length)), {
    type: 'error',
    code: 'upstream_stream_cut',
    message,
    param: null,
    error: { type: 'error', code: 'upstream_stream_cut', message, param: null },
  });
  t.end();
});
