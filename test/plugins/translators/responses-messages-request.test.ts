/**
 * The Responses request as a messages request: every field of the API's rules decided (sent on under
 * messages' name, kept for the echo, or refused with the contract's 400 naming it), the conversation's
 * items and parts as turns and blocks, tools and tool choice, thinking, the sealed reasoning a client
 * sends back, and the messages family's own refusals named as the client sent the field. Expectations
 * are written out here from the two APIs' shapes (the `openai` SDK's ResponseCreateParams, the vendor's
 * Messages API), not read from the translation's tables.
 */
import 'reflect-metadata';
import t from 'tap';
import { GatewayError } from '../../../core/base/errors';
import type { JsonObject } from '../../../core/kit/json';
import { messagesFields, validateMessagesRequest } from '../../../plugins/apis/messages';
import {
  messagesBodyForResponses,
  responsesFieldMessage,
  ResponsesToMessages,
} from '../../../plugins/translators/responses-messages';
import { MODELD_FIELDS, MODELD_MODELS } from '../../../plugins/upstreams/modeld/models';
import {
  CALL_TURN_ITEMS,
  checkEveryField,
  type FieldCases,
  refused,
  SAMPLING_FIELD_CASES,
  SHARED_FIELD_CASES,
  SHARED_REFUSALS,
} from './responses-helpers';
import { MESSAGES_MODEL } from './responses-messages-helpers';

const base = { model: MESSAGES_MODEL.id, input: 'hi' };
const messagesOf = (extra: JsonObject): JsonObject =>
  messagesBodyForResponses({ ...base, ...extra }, MESSAGES_MODEL);
const hiMessages = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];
/** Messages requires `max_tokens`: without the client's, the model's output ceiling. */
const plain = { model: MESSAGES_MODEL.id, max_tokens: 64_000, messages: hiMessages };

const TOOL = { type: 'function', name: 'f', description: 'd', parameters: { type: 'object' }, strict: true };
const MESSAGES_TOOL = { input_schema: { type: 'object' }, name: 'f', description: 'd', strict: true };

/**
 * Every field of the API's rules, with a valid value and what it becomes. A field added to the rules
 * without a row here fails the coverage test below: each must be decided.
 */
const FIELDS: FieldCases = {
  ...SHARED_FIELD_CASES,
  ...SAMPLING_FIELD_CASES,
  instructions: [['be brief', { sent: { system: 'be brief' } }]],
  // Without tools there is no tool choice to carry it.
  parallel_tool_calls: [
    [false, { sent: {} }],
    [true, { sent: {} }],
  ],
  tools: [
    [[TOOL], { sent: { tools: [MESSAGES_TOOL] } }],
    [
      [{ type: 'function', name: 'g' }],
      { sent: { tools: [{ input_schema: { type: 'object' }, name: 'g' }] } },
    ],
    [[{ type: 'web_search' }], { refused: 'tools[0]' }],
    [[{ type: 'file_search', vector_store_ids: [] }], { refused: 'tools[0]' }],
  ],
  tool_choice: [
    ['auto', { sent: { tool_choice: { type: 'auto' } } }],
    ['none', { sent: { tool_choice: { type: 'none' } } }],
    ['required', { sent: { tool_choice: { type: 'any' } } }],
    [{ type: 'function', name: 'f' }, { sent: { tool_choice: { type: 'tool', name: 'f' } } }],
    [{ type: 'file_search' }, { refused: 'tool_choice' }],
  ],
  reasoning: [
    [{ effort: 'low', summary: 'auto' }, { sent: { thinking: { type: 'enabled', budget_tokens: 4096 } } }],
    [{ effort: 'none' }, { sent: {} }],
    [{ effort: 'turbo' }, { refused: 'reasoning.effort' }],
    [{ effort: 'high', mode: 'pro' }, { refused: 'reasoning.mode' }],
  ],
  text: [
    [{ format: { type: 'text' }, verbosity: 'medium' }, { sent: {} }],
    [
      { format: { type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true } },
      { sent: { output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } } },
    ],
    [{ format: { type: 'json_object' } }, { refused: 'text.format' }],
    [{ verbosity: 'low' }, { refused: 'text.verbosity' }],
    [{ format: { type: 'json_schema', name: 'w' } }, { refused: 'text.format', code: 'invalid_request' }],
  ],
  user: [['u-1', { sent: { metadata: { user_id: 'u-1' } } }]],
  safety_identifier: [['s-1', { sent: { metadata: { user_id: 's-1' } } }]],
  prompt_cache_key: [['k', { sent: {} }]],
  prompt_cache_retention: [
    ['in_memory', { sent: {} }],
    ['24h', { refused: 'prompt_cache_retention' }],
  ],
  service_tier: [
    ['auto', { sent: {} }],
    ['flex', { refused: 'service_tier' }],
  ],
  include: [
    [[], { sent: {} }],
    [['reasoning.encrypted_content'], { sent: {} }],
    [['file_search_call.results'], { refused: 'include[0]' }],
  ],
};

t.test('every field of the API is decided: sent on, kept for the echo, or refused naming it', (t) => {
  checkEveryField(t, FIELDS, messagesOf, plain);
  t.end();
});

t.test('a field the API does not define is refused, not passed to messages', (t) => {
  for (const field of ['messages', 'max_tokens', 'system', 'thinking', 'top_k', 'constructor']) {
    t.throws(() => messagesOf({ [field]: 1 }), refused(field), field);
  }
  t.strictSame(messagesOf({ temperature: null, store: null }), plain, 'null is absent');
  t.end();
});

t.test('max_tokens: the client’s, else the model’s ceiling, else a default', (t) => {
  t.equal(messagesOf({ max_output_tokens: 300 }).max_tokens, 300);
  t.equal(messagesOf({}).max_tokens, 64_000);
  const bare = { ...MESSAGES_MODEL, limits: {} };
  t.equal(messagesBodyForResponses(base, bare).max_tokens, 4096);
  t.end();
});

t.test('reasoning.effort: a thinking budget per effort, kept below max_tokens', (t) => {
  const budget = (effort: string, max?: number) =>
    (messagesOf({ reasoning: { effort }, ...(max && { max_output_tokens: max }) }).thinking as JsonObject)
      .budget_tokens;
  t.equal(budget('minimal'), 1024);
  t.equal(budget('medium'), 8192);
  t.equal(budget('high'), 16_384);
  t.equal(budget('xhigh'), 32_768);
  t.equal(budget('high', 5000), 4999, 'below max_tokens');
  t.throws(
    () => messagesOf({ reasoning: { effort: 'low' }, max_output_tokens: 1000 }),
    refused('reasoning.effort', 'invalid_request'),
    'no room for the least budget',
  );
  t.end();
});

t.test('parallel_tool_calls: false disables parallel use on the tool choice', (t) => {
  t.strictSame(messagesOf({ tools: [TOOL], parallel_tool_calls: false }).tool_choice, {
    type: 'auto',
    disable_parallel_tool_use: true,
  });
  t.strictSame(
    messagesOf({ parallel_tool_calls: false, tools: [TOOL], tool_choice: { type: 'function', name: 'f' } })
      .tool_choice,
    { type: 'tool', name: 'f', disable_parallel_tool_use: true },
  );
  t.strictSame(messagesOf({ tools: [TOOL], tool_choice: 'none', parallel_tool_calls: false }).tool_choice, {
    type: 'none',
  });
  t.end();
});

t.test('user and safety_identifier: the end user as metadata.user_id, safety_identifier winning', (t) => {
  t.strictSame(messagesOf({ user: 'u', safety_identifier: 's' }).metadata, { user_id: 's' });
  t.strictSame(messagesOf({ safety_identifier: 's', user: 'u' }).metadata, { user_id: 's' });
  t.end();
});

t.test('the input items become turns, same-role items merged, system text apart', (t) => {
  const body = messagesOf({
    input: [
      { role: 'system', content: [{ type: 'input_text', text: 'more' }] },
      { role: 'developer', content: 'dev' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: 'https://x/i.png', detail: 'auto' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBO' },
        ],
      },
      { role: 'user', content: 'and this' },
      ...CALL_TURN_ITEMS,
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'no more' }] },
      {
        role: 'user',
        content: [{ type: 'input_file', file_data: 'data:application/pdf;base64,AA', filename: 'a.pdf' }],
      },
    ],
    instructions: 'sys',
  });
  t.equal(body.system, 'sys\n\nmore\n\ndev', 'the instructions first');
  t.strictSame(body.messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', source: { type: 'url', url: 'https://x/i.png' } },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
        { type: 'text', text: 'and this' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool_use', id: 'c1', name: 'f', input: {} },
        { type: 'tool_use', id: 'c2', name: 'g', input: { a: 1 } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'one' },
        { type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: 'two' }] },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'no more' }] },
    {
      role: 'user',
      content: [
        {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data: 'AA' },
          title: 'a.pdf',
        },
      ],
    },
  ]);
  t.end();
});

t.test('empty text says nothing and is left out, as messages refuses it', (t) => {
  const body = messagesOf({
    input: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'output_text', text: '' }] },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '' },
    ],
  });
  t.strictSame(body.messages, [
    ...hiMessages,
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'f', input: {} }] },
  ]);
  t.end();
});

t.test('a sealed reasoning item goes back as the thinking before its turn’s calls', (t) => {
  const body = messagesOf({
    store: false,
    include: ['reasoning.encrypted_content'],
    input: [
      { role: 'user', content: 'weather?' },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'Paris, then.' }],
        encrypted_content: 'c2lnbmVk',
      },
      { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'toolu_1', output: '18C' },
      // Summaries only, as a client that kept the summary writes it; unsealed, as another model's.
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Summed up.' }],
        encrypted_content: 'c2Vjb25k',
      },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'not ours' }] },
    ],
  });
  t.strictSame(body.messages, [
    { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Paris, then.', signature: 'c2lnbmVk' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' }] },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'Summed up.', signature: 'c2Vjb25k' }] },
  ]);
  t.end();
});

t.test('an item or part messages has no counterpart for is refused, naming its path', (t) => {
  /** A user message of one part, and the path of the part's member a refusal names. */
  const userPart = (part: JsonObject): JsonObject => ({ input: [{ role: 'user', content: [part] }] });
  const at = (member: string) => `input[0].content[0].${member}`;
  const cases: (readonly [JsonObject, string])[] = [
    ...SHARED_REFUSALS,
    [userPart({ type: 'input_image', image_url: 'https://x', detail: 'high' }), at('detail')],
    [userPart({ type: 'input_file', file_id: 'file_1' }), at('file_id')],
    [userPart({ type: 'input_file', file_data: 'data:a/b;base64,AA', detail: 'low' }), at('detail')],
    [
      { input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'https://x' }] }] },
      'input[0].content[0]',
    ],
    [
      { input: [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_file' }] }] },
      'input[0].output[0]',
    ],
  ];
  for (const [extra, field] of cases) t.throws(() => messagesOf(extra), refused(field), field);
  t.end();
});

t.test('a malformed request is a 400 naming the field', (t) => {
  const call = (args: string): JsonObject => ({
    type: 'function_call',
    call_id: 'c',
    name: 'f',
    arguments: args,
  });
  const malformed: (readonly [unknown, string])[] = [
    [undefined, 'input'],
    [[], 'input'],
    [[call('[1]')], 'input[0].arguments'],
    [[call('{')], 'input[0].arguments'],
    [[{ type: 'reasoning', summary: 'x' }], 'input[0]'],
    [
      [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:nope' }] }],
      'input[0].content[0].image_url',
    ],
    // An unsealed reasoning item alone leaves nothing for the model to read.
    [[{ type: 'reasoning', summary: [] }], 'input'],
  ];
  for (const [input, field] of malformed) {
    const body = { model: MESSAGES_MODEL.id, ...(input !== undefined && { input }) };
    t.throws(() => messagesBodyForResponses(body, MESSAGES_MODEL), refused(field, 'invalid_request'), field);
  }
  t.end();
});

/** What the modeld family says of a translated body for `model`, renamed for the client. */
function familySays(extra: JsonObject, model: string): string | undefined {
  const translator = new ResponsesToMessages();
  const spec = { ...MESSAGES_MODEL, id: model };
  try {
    validateMessagesRequest(
      translator.request({ ...base, ...extra }, spec),
      messagesFields(MODELD_FIELDS),
      spec,
    );
    return undefined;
  } catch (e) {
    if (!(e instanceof GatewayError)) throw e;
    return translator.clientMessage(e.message);
  }
}

t.test("the messages family's refusal names the client's field", (t) => {
  t.same(
    MODELD_MODELS.map((m) => familySays({ instructions: 'x', tools: [TOOL] }, m)),
    [undefined, undefined, undefined, undefined],
    'a plain request passes on every model',
  );
  t.match(familySays({ reasoning: { effort: 'low' } }, 'modeld-opus-4-8'), /^field 'reasoning\.effort'/);
  t.equal(familySays({ reasoning: { effort: 'low' } }, 'modeld-sonnet-4-6'), undefined, 'taken, deprecated');
  t.match(familySays({ user: 'u' }, 'modeld-sonnet-4-5-20250929'), /^field 'user'/);
  t.match(
    familySays({ text: { format: { type: 'json_schema', name: 'w', schema: {} } } }, 'modeld-opus-4-6'),
    /^field 'text\.format'/,
  );
  t.match(
    familySays({ temperature: 1.5 }, 'modeld-sonnet-4-6'),
    /^field 'temperature' must be a number from 0 to 1/,
  );
  t.match(
    familySays({ temperature: 0.5, top_p: 0.5 }, 'modeld-sonnet-4-6'),
    /temperature' and 'top_p' are alternatives/,
  );
  t.match(familySays({ tools: [TOOL], tool_choice: 'none' }, 'modeld-opus-4-6'), /^field 'tool_choice'/);
  // The family's words → the client's.
  const renamed = {
    "field 'max_tokens' must be at most 64000": "field 'max_output_tokens' must be at most 64000",
    "field 'thinking' of type 'enabled' is not supported":
      "field 'reasoning.effort' of type 'enabled' is not supported",
    "field 'thinking.budget_tokens' must be less than 'max_tokens'":
      "field 'reasoning.effort' must be less than 'max_tokens'",
    "field 'messages[1].content[0]' is not a valid 'image' part": "field 'input' is not a valid 'image' part",
    "field 'system' as an array is not supported": "field 'input' as an array is not supported",
    "field 'tools[0].input_schema.type' is required": "field 'tools[0].parameters.type' is required",
    "field 'metadata.user_id' must be a string": "field 'user' must be a string",
  };
  for (const [family, client] of Object.entries(renamed))
    t.equal(responsesFieldMessage(family), client, family);
  t.end();
});

t.test('the translator names the version header messages requires', (t) => {
  t.strictSame(new ResponsesToMessages().headers, { 'modeld-version': '2023-06-01' });
  t.end();
});
