/**
 * The messages request of docs/contract.md#messages-request, checked over real HTTP through the whole pipeline: the
 * version header, the per-model field table (each cell, each form), ranges, the thinking rules, messages,
 * and pass-through of unlisted fields. Expectations come from the contract written out below, not from
 * the modeld plugin's field table, so a wrong cell in the gateway fails here.
 */
import t from 'tap';
import { MESSAGES_FIELD_RULES, messagesFields } from '../../../plugins/apis/messages';
import { MODELD_FIELDS } from '../../../plugins/upstreams/modeld/models';
import { isError } from '../../helpers/errors';
import { startTestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { newId, upstreamBody, upstreamOf } from '../chat-helpers';
import { messages, minimal, MODELD, VERSION } from '../messages-helpers';

interface ContractRow {
  /** The models (1–4, the contract's model order) whose cell is "yes". */
  readonly yes: string;
  readonly valid: unknown;
}

// docs/contract.md#messages-request: 1 sonnet-4-6, 2 opus-4-8, 3 sonnet-4-5-20250929, 4 opus-4-6.
const COLUMNS = ['modeld-sonnet-4-6', 'modeld-opus-4-8', 'modeld-sonnet-4-5-20250929', 'modeld-opus-4-6'];
const CONTRACT: Readonly<Record<string, ContractRow>> = {
  max_tokens: { yes: '1234', valid: 100 },
  system: { yes: '1234', valid: 'You are concise.' },
  stream: { yes: '1234', valid: false },
  temperature: { yes: '134', valid: 0.5 },
  top_p: { yes: '134', valid: 0.9 },
  top_k: { yes: '1', valid: 40 },
  stop_sequences: { yes: '1234', valid: ['END'] },
  tools: { yes: '1234', valid: [{ name: 'get_weather', input_schema: { type: 'object' } }] },
  tool_choice: { yes: '1234', valid: { type: 'auto' } },
  metadata: { yes: '12', valid: { user_id: 'u-1' } },
  thinking: { yes: '12', valid: { type: 'adaptive' } },
  output_config: { yes: '12', valid: { effort: 'high' } },
};

const column = (model: string): string => String(COLUMNS.indexOf(model) + 1);

void t.test('messages request, as the contract defines it', async (t) => {
  const gw = await startTestGateway(t);

  await t.test("the gateway serves the contract's messages models, and enforces its table", (t) => {
    t.strictSame([...MODELD].sort(), [...COLUMNS].sort(), "the catalogue serves the contract's columns");
    t.strictSame(Object.keys(MESSAGES_FIELD_RULES).sort(), Object.keys(CONTRACT).sort());
    const fields = messagesFields(MODELD_FIELDS);
    for (const field of Object.keys(MESSAGES_FIELD_RULES)) {
      const accepted = MODELD.filter((m) => fields.takes(m, field)).map(column);
      t.equal(accepted.sort().join(''), CONTRACT[field]?.yes, `${field}: columns`);
    }
    t.end();
  });

  await t.test(
    'a "no" cell → 400 unsupported_field naming field and model, nothing sent upstream',
    async (t) => {
      for (const [field, row] of Object.entries(CONTRACT)) {
        for (const model of MODELD.filter((m) => !row.yes.includes(column(m)))) {
          const id = newId(`no-${field}-${model}`);
          const res = await messages(gw, minimal(model, { [field]: row.valid }), id);
          isError(t, res, 400, 'unsupported_field', `'${field}'`, model);
          t.equal(upstreamOf(gw, id).length, 0, 'nothing upstream');
        }
      }
    },
  );

  await t.test('a "yes" cell → forwarded with the field unchanged', async (t) => {
    for (const [field, row] of Object.entries(CONTRACT)) {
      for (const model of MODELD.filter((m) => row.yes.includes(column(m)))) {
        const id = newId(`yes-${field}-${model}`);
        await messages(gw, minimal(model, { [field]: row.valid }), id);
        t.strictSame(upstreamBody(gw, id)[field], row.valid, `${field} on ${model}`);
      }
    }
  });

  await t.test(
    'forms: system as an array and tool_choice none only on sonnet-4-6 and opus-4-8',
    async (t) => {
      const cases = [
        { field: 'system', value: [{ type: 'text', text: 'Be brief.' }], form: 'as an array' },
        { field: 'tool_choice', value: { type: 'none' }, form: "of type 'none'" },
      ];
      for (const { field, value, form } of cases) {
        for (const model of MODELD) {
          const id = newId(`${field}-form-${model}`);
          const res = await messages(gw, minimal(model, { [field]: value }), id);
          if (model === 'modeld-sonnet-4-6' || model === 'modeld-opus-4-8') {
            t.equal(upstreamOf(gw, id).length, 1, `${field} ${form} forwarded for ${model}`);
          } else {
            isError(t, res, 400, 'unsupported_field', `'${field}' ${form}`, model);
          }
        }
      }
    },
  );

  await t.test('tool_choice kinds auto, any and tool (with a name) on every model', async (t) => {
    const kinds = [{ type: 'auto' }, { type: 'any' }, { type: 'tool', name: 'get_weather' }];
    for (const model of MODELD) {
      for (const choice of kinds) {
        const id = newId(`tool-choice-${choice.type}-${model}`);
        await messages(gw, minimal(model, { tool_choice: choice }), id);
        t.strictSame(upstreamBody(gw, id).tool_choice, choice);
      }
    }
  });

  await t.test('types and ranges → 400 invalid_request naming the field', async (t) => {
    const model = 'modeld-sonnet-4-6';
    const bad: [string, unknown][] = [
      ['max_tokens', 0],
      ['max_tokens', -5],
      ['max_tokens', 1.5],
      ['max_tokens', '100'],
      ['temperature', 1.5],
      ['temperature', -0.1],
      ['top_p', 1.01],
      ['top_k', -1],
      ['top_k', 2.5],
      ['stop_sequences', 'END'],
      ['stop_sequences', [1]],
      ['tools', { name: 'x' }],
      ['tool_choice', 'auto'],
      ['tool_choice', { type: 'bogus' }],
      ['tool_choice', { type: 'tool' }],
      ['system', 5],
      ['stream', 'yes'],
      ['metadata', 'u-1'],
      ['thinking', { type: 'sometimes' }],
      ['thinking', { type: 'enabled', budget_tokens: 512 }],
      ['output_config', []],
    ];
    for (const [field, value] of bad) {
      const id = newId(`bad-${field}`);
      const res = await messages(gw, minimal(model, { max_tokens: 4096, [field]: value }), id);
      isError(t, res, 400, 'invalid_request', `'${field}'`);
      t.equal(upstreamOf(gw, id).length, 0);
    }
  });

  await t.test('max_tokens is required', async (t) => {
    const res = await messages(
      gw,
      { model: 'modeld-opus-4-6', messages: [{ role: 'user', content: 'hi' }] },
      newId('no-max'),
    );
    isError(t, res, 400, 'invalid_request', "'max_tokens'", 'required');
  });

  await t.test('temperature and top_p are alternatives', async (t) => {
    const res = await messages(
      gw,
      minimal('modeld-sonnet-4-6', { temperature: 0.5, top_p: 0.9 }),
      newId('both'),
    );
    isError(t, res, 400, 'invalid_request', "'temperature'", "'top_p'");
  });

  await t.test('messages: non-empty, roles user and assistant, content a string or blocks', async (t) => {
    const model = 'modeld-opus-4-8';
    const cases: [unknown, string[]][] = [
      [undefined, ["'messages'"]],
      [[], ["'messages'"]],
      [['hi'], ["'messages[0]'"]],
      [[{ role: 'system', content: 'be brief' }], ["'messages[0].role'", "top-level 'system'"]],
      [[{ role: 'tool', content: 'x' }], ["'messages[0].role'", 'user or assistant']],
      [[{ role: 'user', content: 5 }], ["'messages[0].content'"]],
      [[{ role: 'user', content: [{ text: 'no type' }] }], ["'messages[0].content[0].type'"]],
    ];
    for (const [value, mentions] of cases) {
      const res = await messages(gw, minimal(model, { messages: value }), newId('messages'));
      isError(t, res, 400, 'invalid_request', ...mentions);
    }
    const id = newId('blocks');
    const blocks = [
      { role: 'user', content: [{ type: 'text', text: 'What is this?' }] },
      { role: 'assistant', content: 'A picture.' },
      { role: 'user', content: 'Sure?' },
    ];
    await messages(gw, minimal(model, { messages: blocks }), id);
    t.strictSame(upstreamBody(gw, id).messages, blocks, 'blocks and strings forwarded as sent');
  });

  await t.test('thinking on opus-4-8: adaptive and disabled pass, enabled is refused', async (t) => {
    for (const thinking of [{ type: 'adaptive' }, { type: 'disabled' }]) {
      const id = newId(`opus-thinking-${thinking.type}`);
      await messages(gw, minimal('modeld-opus-4-8', { thinking }), id);
      t.strictSame(upstreamBody(gw, id).thinking, thinking);
    }
    const res = await messages(
      gw,
      minimal('modeld-opus-4-8', { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } }),
      newId('opus-enabled'),
    );
    isError(t, res, 400, 'unsupported_field', "'thinking' of type 'enabled'", 'modeld-opus-4-8', 'adaptive');
  });

  await t.test(
    'thinking on sonnet-4-6: enabled with budget_tokens works, with a deprecation warning',
    async (t) => {
      const id = newId('sonnet-enabled');
      const thinking = { type: 'enabled', budget_tokens: 2048 };
      const res = await messages(gw, minimal('modeld-sonnet-4-6', { max_tokens: 4096, thinking }), id);
      t.strictSame(upstreamBody(gw, id).thinking, thinking);
      t.match(
        res.headers.get('warning'),
        /^299 - "thinking type 'enabled' with budget_tokens is deprecated on modeld-sonnet-4-6; use type 'adaptive'"$/,
      );
      const adaptive = await messages(
        gw,
        minimal('modeld-sonnet-4-6', { thinking: { type: 'adaptive' } }),
        newId('adaptive'),
      );
      t.equal(adaptive.headers.get('warning'), null, 'no warning for adaptive');
      const over = await messages(
        gw,
        minimal('modeld-sonnet-4-6', { max_tokens: 2048, thinking }),
        newId('budget-over'),
      );
      isError(t, over, 400, 'invalid_request', "'thinking.budget_tokens'", "'max_tokens'");
    },
  );

  await t.test('modeld-version must be 2023-06-01', async (t) => {
    const missing = await messages(gw, minimal('modeld-sonnet-4-6'), newId('no-version'), {});
    isError(t, missing, 400, 'invalid_request', "'modeld-version'", '2023-06-01', 'required');
    const wrong = await messages(gw, minimal('modeld-sonnet-4-6'), newId('old-version'), {
      'modeld-version': '2023-01-01',
    });
    isError(t, wrong, 400, 'invalid_request', "'modeld-version'", '2023-06-01', '2023-01-01');
  });

  await t.test('a model not served on /v1/messages → 404 naming where it is served', async (t) => {
    const chatModel = await messages(gw, minimal('modela-5.5'), newId('chat-model'));
    isError(t, chatModel, 404, 'model_not_found', 'modela-5.5', '/v1/chat/completions');
    const unknown = await messages(gw, minimal('modeld-haiku-9'), newId('unknown-model'));
    isError(t, unknown, 404, 'model_not_found', 'modeld-haiku-9');
    const onChat = await postJson(`${gw.url}/v1/chat/completions`, minimal('modeld-opus-4-8'), gw.key);
    isError(t, onChat, 404, 'model_not_found', 'modeld-opus-4-8', '/v1/messages');
  });

  await t.test('no key → 401 before anything else is checked', async (t) => {
    const res = await postJson(`${gw.url}/v1/messages`, minimal('modeld-sonnet-4-6'), undefined, VERSION);
    isError(t, res, 401, 'unauthorized', 'unauthorized');
  });

  await t.test('fields the contract does not list pass through unchanged', async (t) => {
    const id = newId('unlisted');
    const extra = { service_tier: 'standard_only', container: { id: 'c-1' }, constructor: 'x' };
    await messages(gw, minimal('modeld-opus-4-6', extra), id);
    const body = upstreamBody(gw, id);
    for (const [k, v] of Object.entries(extra)) t.strictSame(body[k], v, k);
  });
});
