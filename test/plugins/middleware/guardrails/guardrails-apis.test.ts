/**
 * A response rule on every API with texts, JSON and stream, through the SDKs clients use: messages
 * (native to modeld), responses relayed (modela) and translated (to modeld's messages, to modelc's chat).
 * Each answer withholds the match and says so in its API's own words.
 */
import 'reflect-metadata';
import t from 'tap';
import { startTestGateway } from '../../../helpers/gateway';
import { gatewayAnthropic } from '../../../helpers/anthropic-client';
import { echoed, openaiFor, recordOf, upstreamBodies, withGuardrails, withId } from './guardrails-helpers';

const RULES = {
  rules: [
    { name: 'no-codenames', on: 'response', pattern: 'Project Zephyr', action: 'block' },
    { name: 'emails', on: 'response', pii: ['email'], action: 'mask' },
    { name: 'tickets', on: 'request', pattern: 'TICKET-\\d+', action: 'mask', placeholder: '[TICKET]' },
  ],
};
const blocked = echoed('tell me about Project Zephyr please');
const masked = echoed('write to jane.doe@example.com now');

t.test('every API, JSON and stream', async (t) => {
  const gw = await startTestGateway(t, withGuardrails(RULES));
  const openai = openaiFor(gw, gw.key);
  const anthropic = gatewayAnthropic(gw);
  const acted = async (id: string, name: string, action: string) =>
    t.ok(
      (await recordOf(gw, id)).guardrail?.some((g) => g.name === name && g.action === action),
      `${name} ${action}`,
    );

  t.test('messages JSON: stop_reason refusal, the text before the match', async (t) => {
    const message = await anthropic.messages.create(
      { model: 'modeld-sonnet-4-6', max_tokens: 256, messages: [{ role: 'user', content: blocked }] },
      withId('msg-json'),
    );
    t.equal(message.stop_reason, 'refusal');
    const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    t.ok(text.includes('tell me about '));
    t.notOk(text.includes('Zephyr'));
    t.ok(message.usage.output_tokens > 0, 'usage as the vendor reported it');
    await acted('msg-json', 'no-codenames', 'block');
  });

  t.test('messages stream: no part of the match, then refusal and message_stop', async (t) => {
    const stream = await anthropic.messages.create(
      {
        model: 'modeld-sonnet-4-6',
        max_tokens: 256,
        messages: [{ role: 'user', content: blocked }],
        stream: true,
      },
      withId('msg-stream'),
    );
    const events = [];
    for await (const ev of stream) events.push(ev);
    const text = events
      .map((ev) => (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta' ? ev.delta.text : ''))
      .join('');
    t.ok(text.includes('tell me about '));
    t.notOk(text.includes('Project Z'));
    const delta = events.find((ev) => ev.type === 'message_delta');
    t.equal(delta?.type === 'message_delta' && delta.delta.stop_reason, 'refusal');
    t.ok(delta?.type === 'message_delta' && delta.usage.output_tokens > 0, 'with its usage');
    t.equal(events.at(-1)?.type, 'message_stop');
    await acted('msg-stream', 'no-codenames', 'block');
  });

  t.test('messages: a masked answer, JSON and stream', async (t) => {
    const message = await anthropic.messages.create({
      model: 'modeld-sonnet-4-6',
      max_tokens: 256,
      messages: [{ role: 'user', content: masked }],
    });
    const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    t.ok(text.includes('write to [EMAIL] now'));
    const stream = anthropic.messages.stream({
      model: 'modeld-sonnet-4-6',
      max_tokens: 256,
      messages: [{ role: 'user', content: masked }],
    });
    const final = await stream.finalText();
    t.ok(final.includes('write to [EMAIL] now'));
    t.notOk(final.includes('jane'));
  });

  for (const [path, model] of [
    ['relayed', 'modela-5.5'],
    ['translated to messages', 'modeld-sonnet-4-6'],
    ['translated to chat', 'modelc-3.6-plus'],
  ] as const) {
    t.test(`responses JSON, ${path}: incomplete, content_filter`, async (t) => {
      const id = `resp-json-${model}`;
      const response = await openai.responses.create({ model, input: blocked }, withId(id));
      t.equal(response.status, 'incomplete');
      t.strictSame(response.incomplete_details, { reason: 'content_filter' });
      t.ok(response.output_text.includes('tell me about '));
      t.notOk(response.output_text.includes('Zephyr'));
      t.ok(response.usage && response.usage.output_tokens > 0);
      await acted(id, 'no-codenames', 'block');
    });

    t.test(`responses stream, ${path}: no part of the match, then response.incomplete`, async (t) => {
      const id = `resp-stream-${model}`;
      const stream = await openai.responses.create({ model, input: blocked, stream: true }, withId(id));
      const events = [];
      for await (const ev of stream) events.push(ev);
      const text = events.map((ev) => (ev.type === 'response.output_text.delta' ? ev.delta : '')).join('');
      t.ok(text.includes('tell me about '));
      t.notOk(text.includes('Project Z'));
      const last = events.at(-1);
      t.equal(last?.type, 'response.incomplete');
      if (last?.type === 'response.incomplete') {
        t.strictSame(last.response.incomplete_details, { reason: 'content_filter' });
        t.ok(last.response.usage && last.response.usage.output_tokens > 0, 'with its usage');
        t.notOk(JSON.stringify(last.response.output).includes('Zephyr'), 'the final output withholds it too');
      }
      const numbers = events.map((ev) => ev.sequence_number);
      t.ok(
        numbers.every((n, i) => i === 0 || n > numbers[i - 1]!),
        'sequence numbers still rise',
      );
      await acted(id, 'no-codenames', 'block');
    });

    t.test(`responses stream, ${path}: masked, done events included`, async (t) => {
      const stream = await openai.responses.create({ model, input: masked, stream: true });
      const events = [];
      for await (const ev of stream) events.push(ev);
      const all = JSON.stringify(events);
      t.notOk(all.includes('jane.doe'), 'in no event, deltas or done');
      t.ok(all.includes('write to [EMAIL] now'));
      t.equal(events.at(-1)?.type, 'response.completed');
    });
  }

  t.test('messages: a request rule reads the system prompt, tool results and tool input', async (t) => {
    await anthropic.messages.create(
      {
        model: 'modeld-sonnet-4-6',
        max_tokens: 32,
        system: [{ type: 'text', text: 'about TICKET-1' }],
        messages: [
          { role: 'user', content: 'look TICKET-2 up' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'TICKET-3', input: { ticket: 'TICKET-4' } }],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'TICKET-5 is open #sim tokens=2' },
            ],
          },
        ],
      },
      withId('msg-request'),
    );
    const [body] = upstreamBodies(gw, 'msg-request');
    const sent = JSON.stringify(body);
    t.notOk(/TICKET-[1245]/.test(sent), 'every text masked');
    t.ok(sent.includes('"name":"TICKET-3"'), 'a tool’s name is no text: left as it is');
    t.ok(sent.includes('"input":{"ticket":"[TICKET]"}'), 'a tool input’s values are, its keys are not');
  });

  t.test('embeddings: a request rule reads their input', async (t) => {
    const result = await openai.embeddings.create(
      { model: 'modela-embedding-3-small', input: ['see TICKET-42', 'plain'] },
      withId('embed-1'),
    );
    t.equal(result.data.length, 2);
    t.match(upstreamBodies(gw, 'embed-1'), [{ input: ['see [TICKET]', 'plain'] }]);
  });
});
