/**
 * The chat completion request of docs/contract.md#chat-completion-request, checked over real HTTP through the whole pipeline:
 * the field table per family, ranges and types, messages, the model field, pass-through of unlisted
 * fields, and the shape of every error. Expectations come from the contract table written out below, not
 * from the gateway's rules or the families' own tables, so a wrong cell in a family plugin fails here.
 */
import t from 'tap';
import { CHAT_FIELD_RULES } from '../../../plugins/apis/chat-completions';
import { startTestGateway } from '../../helpers/gateway';
import { isError } from '../../helpers/errors';
import {
  chat,
  FAMILIES,
  hello,
  MODEL,
  newId,
  upstreamBody,
  upstreamOf,
  type ChatFamily,
} from '../chat-helpers';

interface ContractRow {
  /** The families whose cell is "yes". */
  readonly yes: string;
  /** A valid value. */
  readonly valid: unknown;
  /** Fields the valid value needs beside it (sent after it, so a "no" cell is still the first refusal). */
  readonly with?: Record<string, unknown>;
}

// docs/contract.md#chat-completion-request, optional fields: columns A, B, C.
const CONTRACT: Readonly<Record<string, ContractRow>> = {
  stream: { yes: 'ABC', valid: true },
  stream_options: { yes: 'C', valid: { include_usage: true }, with: { stream: true } },
  temperature: { yes: 'ABC', valid: 0.7 },
  top_p: { yes: 'ABC', valid: 0.9 },
  max_tokens: { yes: 'ABC', valid: 5 },
  n: { yes: 'ABC', valid: 2 },
  stop: { yes: 'ABC', valid: ['\n\n', 'END'] },
  presence_penalty: { yes: 'ABC', valid: 0.5 },
  frequency_penalty: { yes: 'AB', valid: 0.5 },
  repetition_penalty: { yes: 'C', valid: 1.1 },
  logprobs: { yes: 'A', valid: true },
  top_logprobs: { yes: 'A', valid: 3, with: { logprobs: true } },
  seed: { yes: 'AC', valid: 42 },
  reasoning_effort: { yes: 'AB', valid: 'low' },
  // The upstream refuses thinking without streaming (docs/upstreams.md#modelc), so the valid request streams.
  enable_thinking: { yes: 'C', valid: true, with: { stream: true } },
  tools: {
    yes: 'ABC',
    valid: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
  },
  tool_choice: { yes: 'ABC', valid: 'auto' },
  parallel_tool_calls: { yes: 'AC', valid: false },
  response_format: { yes: 'ABC', valid: { type: 'json_object' } },
  extra_body: { yes: 'B', valid: { google: { thinking_config: { thinking_level: 'low' } } } },
  user: { yes: 'A', valid: 'end-user-7' },
};

/** The name a field travels under to a family's upstream (modela takes `max_completion_tokens`). */
const wireName = (field: string, family: ChatFamily): string =>
  family === 'A' && field === 'max_tokens' ? 'max_completion_tokens' : field;

void t.test('chat completion request, as the contract defines it', async (t) => {
  const gw = await startTestGateway(t);

  await t.test("the gateway knows the contract's fields, no more and no fewer", (t) => {
    // Each family's column is checked below, field by field, over HTTP.
    t.strictSame(Object.keys(CHAT_FIELD_RULES).sort(), Object.keys(CONTRACT).sort());
    t.end();
  });

  await t.test('a field whose cell is "no" → 400 unsupported_field, nothing sent upstream', async (t) => {
    for (const [field, row] of Object.entries(CONTRACT)) {
      for (const family of FAMILIES.filter((f) => !row.yes.includes(f))) {
        const model = MODEL[family];
        const id = newId(`no-${field}-${family}`);
        const res = await chat(gw, { model, messages: hello, [field]: row.valid, ...row.with }, id);
        isError(t, res, 400, 'unsupported_field', `'${field}'`, `'${model}'`);
        t.equal(upstreamOf(gw, id).length, 0, `${field} on ${model}: upstream saw nothing`);
      }
    }
  });

  await t.test('a field whose cell is "yes" → 200 and the value arrives upstream', async (t) => {
    for (const [field, row] of Object.entries(CONTRACT)) {
      for (const family of FAMILIES.filter((f) => row.yes.includes(f))) {
        const id = newId(`yes-${field}-${family}`);
        const res = await chat(
          gw,
          { model: MODEL[family], messages: hello, [field]: row.valid, ...row.with },
          id,
        );
        t.equal(res.status, 200, `${field} on ${MODEL[family]}: ${res.text.slice(0, 200)}`);
        const sent = upstreamBody(gw, id);
        t.strictSame(sent[wireName(field, family)], row.valid, `${field} on ${MODEL[family]} arrived`);
        if (wireName(field, family) !== field) t.notOk(field in sent, `${field} itself is not sent`);
      }
    }
  });

  await t.test('out of range or of the wrong type → 400 invalid_request naming the field', async (t) => {
    // [field, invalid body fields]; each is tried on every family that accepts the field.
    const cases: [string, Record<string, unknown>][] = [
      ['top_p', { top_p: -0.01 }],
      ['top_p', { top_p: 1.01 }],
      ['presence_penalty', { presence_penalty: -2.5 }],
      ['presence_penalty', { presence_penalty: 2.01 }],
      ['frequency_penalty', { frequency_penalty: -2.01 }],
      ['frequency_penalty', { frequency_penalty: 3 }],
      ['temperature', { temperature: -0.1 }],
      ['temperature', { temperature: 2.1 }],
      ['temperature', { temperature: '0.5' }],
      ['n', { n: 0 }],
      ['n', { n: 1.5 }],
      ['max_tokens', { max_tokens: 0 }],
      ['top_logprobs', { top_logprobs: 2 }],
      ['top_logprobs', { top_logprobs: 2, logprobs: false }],
      ['reasoning_effort', { reasoning_effort: 'extreme' }],
      ['stream', { stream: 'yes' }],
      ['logprobs', { logprobs: 'true' }],
      ['tools', { tools: 'get_weather' }],
      ['user', { user: 42 }],
    ];
    for (const [field, fields] of cases) {
      for (const family of FAMILIES.filter((f) => CONTRACT[field]!.yes.includes(f))) {
        const id = newId(`range-${field}-${family}`);
        const res = await chat(gw, { model: MODEL[family], messages: hello, ...fields }, id);
        isError(t, res, 400, 'invalid_request', `'${field}'`);
        t.equal(
          upstreamOf(gw, id).length,
          0,
          `${JSON.stringify(fields)} on ${MODEL[family]}: nothing upstream`,
        );
      }
    }
  });

  await t.test('the edges of each range are accepted', async (t) => {
    const cases: [ChatFamily, Record<string, unknown>][] = [];
    for (const family of FAMILIES) {
      cases.push([family, { top_p: 0 }], [family, { top_p: 1 }], [family, { temperature: 0 }]);
      cases.push([family, { temperature: 2 }], [family, { presence_penalty: -2 }]);
      cases.push([family, { presence_penalty: 2 }], [family, { n: 1 }]);
    }
    cases.push(['A', { frequency_penalty: -2 }], ['B', { frequency_penalty: 2 }]);
    cases.push(['A', { logprobs: true, top_logprobs: 0 }], ['A', { top_logprobs: 20, logprobs: true }]);
    for (const reasoning_effort of ['low', 'medium', 'high']) cases.push(['B', { reasoning_effort }]);
    for (const [family, fields] of cases) {
      const id = newId(`edge-${family}`);
      const res = await chat(gw, { model: MODEL[family], messages: hello, ...fields }, id);
      t.equal(res.status, 200, `${JSON.stringify(fields)} on ${MODEL[family]}`);
      t.match(upstreamBody(gw, id), fields, 'arrived as sent');
    }
  });

  await t.test('messages that break the contract → 400 naming messages…', async (t) => {
    const cases: [string, Record<string, unknown>][] = [
      ["'messages'", {}],
      ["'messages'", { messages: 'hi' }],
      ["'messages'", { messages: [] }],
      ["'messages[0]'", { messages: ['hi'] }],
      ["'messages[0]'", { messages: [null] }],
      ["'messages[0].role'", { messages: [{ role: 'robot', content: 'hi' }] }],
      ["'messages[0].role'", { messages: [{ content: 'hi' }] }],
      ["'messages[1].role'", { messages: [...hello, { role: 'developer', content: 'be brief' }] }],
      ["'messages[0].content'", { messages: [{ role: 'user' }] }],
      ["'messages[0].content'", { messages: [{ role: 'user', content: 5 }] }],
    ];
    for (const family of FAMILIES) {
      for (const [named, fields] of cases) {
        const id = newId(`messages-${family}`);
        const res = await chat(gw, { model: MODEL[family], ...fields }, id);
        isError(t, res, 400, 'invalid_request', named);
        t.equal(upstreamOf(gw, id).length, 0, 'nothing upstream');
      }
    }
  });

  await t.test('a multi-turn conversation with a tool call and its result is accepted', async (t) => {
    const messages = [
      { role: 'system', content: 'You answer about weather.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
      { role: 'assistant', content: 'It is 21 °C.' },
      { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
    ];
    for (const family of FAMILIES) {
      const id = newId(`multi-${family}`);
      const res = await chat(gw, { model: MODEL[family], messages, tools: CONTRACT.tools!.valid }, id);
      t.equal(res.status, 200, MODEL[family]);
      t.strictSame(upstreamBody(gw, id).messages, messages, 'the conversation arrived intact');
    }
  });

  await t.test(
    'model missing or not a string → 400; another endpoint’s or an unknown model → 404',
    async (t) => {
      const invalid: unknown[] = [undefined, 42, '', ['modela-5.5'], null];
      for (const model of invalid) {
        const id = newId('model-invalid');
        isError(t, await chat(gw, { model, messages: hello }, id), 400, 'invalid_request', "'model'");
        t.equal(upstreamOf(gw, id).length, 0);
      }
      for (const model of [
        'modeld-opus-4-8',
        'modelb-3.1-flash-image-preview',
        'modela-9000',
        'MODELA-5.5',
      ]) {
        const id = newId('model-unknown');
        isError(t, await chat(gw, { model, messages: hello }, id), 404, 'model_not_found', `'${model}'`);
        t.equal(upstreamOf(gw, id).length, 0);
      }
    },
  );

  await t.test('fields the contract does not list pass through unchanged', async (t) => {
    const unlisted = {
      metadata: { order: 'A-1', tags: ['x'] },
      service_tier: 'flex',
      top_k: 5,
      x_custom: { nested: [1, { deep: null }], flag: true },
    };
    for (const family of FAMILIES) {
      // Nothing has to change (no rename, no stream): the upstream gets the client's bytes. Pretty-printed
      // JSON proves it, as any re-serialisation would drop the whitespace and change the length.
      const body = { model: MODEL[family], ...unlisted, messages: hello, temperature: 0.2 };
      const text = JSON.stringify(body, null, 2);
      const id = newId(`unlisted-${family}`);
      const res = await chat(gw, text, id);
      t.equal(res.status, 200, MODEL[family]);
      const [entry] = upstreamOf(gw, id);
      t.strictSame(entry?.body, body, 'deep-equal');
      t.strictSame(Object.keys(entry?.body as object), Object.keys(body), 'key order kept');
      t.equal(entry?.headers['content-length'], String(Buffer.byteLength(text)), 'the exact bytes');
    }

    // When the body must change (modela's rename) unlisted fields still arrive unchanged, in order.
    const id = newId('unlisted-renamed');
    const res = await chat(gw, { model: MODEL.A, ...unlisted, messages: hello, max_tokens: 4 }, id);
    t.equal(res.status, 200);
    t.strictSame(upstreamBody(gw, id), {
      model: MODEL.A,
      ...unlisted,
      messages: hello,
      max_completion_tokens: 4,
    });
    t.strictSame(Object.keys(upstreamBody(gw, id)), [
      'model',
      ...Object.keys(unlisted),
      'messages',
      'max_completion_tokens',
    ]);
  });

  await t.test('unlisted fields named like Object.prototype members pass through', async (t) => {
    // CHAT_FIELDS is a plain object: these names must not be taken for rules inherited from Object.
    for (const field of ['constructor', 'toString', 'hasOwnProperty']) {
      const id = newId(`proto-${field}`);
      const body = { model: MODEL.B, messages: hello, [field]: { a: 1 } };
      const res = await chat(gw, body, id);
      t.equal(res.status, 200, `${field}: ${res.text}`);
      // Compared as JSON: tap's deep comparison treats an own `constructor` key specially.
      const sent = JSON.stringify(upstreamOf(gw, id)[0]?.body);
      t.equal(sent, JSON.stringify(body), 'arrived unchanged');
    }
  });

  await t.test('a refused stream request gets a JSON error, not an event stream', async (t) => {
    const id = newId('stream-refused');
    const res = await chat(gw, { model: MODEL.B, messages: hello, stream: true, seed: 1 }, id);
    isError(t, res, 400, 'unsupported_field', "'seed'", `'${MODEL.B}'`);
    t.equal(upstreamOf(gw, id).length, 0);
  });
});
