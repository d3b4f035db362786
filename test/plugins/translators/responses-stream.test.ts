/**
 * Recorded chat streams as Responses streams, event by event, through the chat family's own reader as
 * the endpoint will wire it: text, reasoning then text, parallel tool calls, an in-stream error, a cut,
 * and an answer cut short by its token limit. Each stream is checked for the API's order, numbering and
 * names, and its events' members against OpenAI's recorded streams (test/kit/fixtures/responses/).
 */
import 'reflect-metadata';
import t from 'tap';
import type { JsonObject } from '../../../core/kit/json';
import {
  chatEvents,
  checkCutFrames,
  checkCutShort,
  checkNumbering,
  deltaText,
  goldenEvents,
  missingAgainst,
  ofItem,
  payloads,
  REASONING_STEPS,
  steps,
  translateStream,
  withData,
} from './responses-helpers';

t.test('a text stream: the API steps, numbered, with the usage the family read', (t) => {
  const { reader, events } = translateStream(chatEvents('fixtures/modela/stream-include-usage.sse'));
  const data = payloads(events);
  const golden = goldenEvents('stream-text.jsonl');
  t.strictSame(steps(data), steps(golden), "the recorded stream's steps");
  checkNumbering(t, events);
  t.same(missingAgainst(data, golden), [], "every member of OpenAI's events");
  const text = deltaText(data);
  t.match(text, /^I'm unable to provide real-time updates/);
  const completed = data.at(-1)!;
  t.match(completed, {
    type: 'response.completed',
    response: {
      status: 'completed',
      output: [{ type: 'message', status: 'completed', content: [{ type: 'output_text', text }] }],
      usage: { input_tokens: 14, output_tokens: 47, total_tokens: 61 },
    },
  });
  t.match(data[0], {
    type: 'response.created',
    response: { status: 'in_progress', output: [], usage: null },
  });
  t.equal((data[0]!.response as JsonObject).id, (completed.response as JsonObject).id, 'one id throughout');
  t.ok(reader.complete);
  t.notOk(reader.failed);
  t.strictSame(reader.usage(), { promptTokens: 14, completionTokens: 47, totalTokens: 61, estimated: false });
  t.end();
});

t.test('a reasoning stream: a reasoning item of reasoning_text, then the message', (t) => {
  const { reader, events } = translateStream(chatEvents('fixtures/modelc/stream-reasoning.sse'));
  const data = payloads(events);
  checkNumbering(t, events);
  t.strictSame(steps(ofItem(data, 0)), REASONING_STEPS, 'a reasoning item');
  t.strictSame(steps(ofItem(data, 1)), steps(ofItem(goldenEvents('stream-text.jsonl'), 0)), 'then a message');
  const reasoning = data
    .filter((e) => e.type === 'response.reasoning_text.delta')
    .map((e) => e.delta)
    .join('');
  t.match(reasoning, /^We are asked:/);
  t.match(data.at(-1), {
    type: 'response.completed',
    response: {
      output: [
        { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: reasoning }] },
        { type: 'message', content: [{ text: /Answer: 3/ }] },
      ],
      usage: {
        input_tokens: 24,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 1355,
        output_tokens_details: { reasoning_tokens: 1084 },
        total_tokens: 1379,
      },
    },
  });
  t.ok(reader.complete);
  t.end();
});

t.test('parallel tool calls: an item each, arguments streamed, closed at the finish', (t) => {
  const { events } = translateStream(chatEvents('fixtures/modela/stream-parallel-tools.sse'));
  const data = payloads(events);
  const golden = goldenEvents('stream-function-call.jsonl');
  checkNumbering(t, events);
  for (const index of [0, 1]) {
    t.strictSame(
      steps(ofItem(data, index)),
      steps(ofItem(golden, 0)),
      `call ${index}: the recorded call's steps`,
    );
  }
  t.same(missingAgainst(data, golden), [], "every member of OpenAI's events but the padding");
  const done = data.filter((e) => e.type === 'response.function_call_arguments.done');
  t.match(done, [
    {
      name: 'GetWeatherArgs',
      arguments: '{"city": "Edinburgh", "country": "UK", "units": "c"}',
      output_index: 0,
    },
    { name: 'get_stock_price', arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}', output_index: 1 },
  ]);
  t.match(data.at(-1), {
    type: 'response.completed',
    response: {
      status: 'completed',
      output: [
        { type: 'function_call', status: 'completed', call_id: 'call_lQnnsesjFMWMQ5IeWPHzR4th' },
        { type: 'function_call', status: 'completed', call_id: 'call_2xjOUgaCdiwAcl9ZBL9LyMUU' },
      ],
      usage: { input_tokens: 149, output_tokens: 60 },
    },
  });
  t.end();
});

t.test("an upstream's in-stream error: the error event in both shapes, then response.failed", (t) => {
  const { reader, events } = translateStream(chatEvents('kit/fixtures/modela/stream-error.sse'));
  const data = payloads(events);
  checkNumbering(t, events);
  const golden = goldenEvents('stream-error.jsonl');
  t.strictSame(steps(data).slice(-2), steps(golden).slice(-2), 'ends as the recorded failure');
  t.same(missingAgainst(data, golden), [], "every member of OpenAI's events");
  const message = 'The server had an error while processing your request. Sorry about that!';
  t.match(data.at(-2), {
    type: 'error',
    code: null,
    message,
    param: null,
    error: { type: 'server_error', code: null, message, param: null },
  });
  t.match(data.at(-1), {
    type: 'response.failed',
    response: {
      status: 'failed',
      error: { code: 'server_error', message },
      output: [{ type: 'message', status: 'incomplete', content: [{ type: 'output_text', text: String }] }],
    },
  });
  t.ok(reader.failed);
  t.notOk(reader.complete);
  t.equal(reader.event({ data: '[DONE]' }), null, 'nothing follows the failure');
  t.end();
});

t.test("a cut stream: no terminal event, the family's estimate, and the gateway's frame numbered on", (t) => {
  const { reader, events } = translateStream(chatEvents('kit/fixtures/modela/stream-cut.sse'));
  const data = payloads(events);
  t.notOk(reader.complete);
  t.notOk(reader.failed);
  t.notOk(
    data.some((e) => String(e.type).startsWith('response.completed')),
    'no completed event',
  );
  const delivered = data
    .filter((e) => e.type === 'response.output_text.delta')
    .map((e) => String(e.delta))
    .join('');
  t.strictSame(reader.usage(), {
    promptTokens: 3,
    completionTokens: Math.ceil(delivered.length / 4),
    estimated: true,
  });
  checkCutFrames(t, reader, data.length, 'modela-main');
  t.end();
});

t.test('an answer cut by its token limit ends with response.incomplete', (t) => {
  const events = chatEvents('fixtures/modela/stream-include-usage.sse');
  const { reader, events: out } = translateStream(
    withData(events, '"finish_reason":"stop"', '"finish_reason":"length"'),
  );
  checkCutShort(t, reader, out);
  t.end();
});

t.test('the shapes vendors vary in: whole calls in one chunk, no index, no id, text after a call', (t) => {
  const chunk = (delta: JsonObject, finish: string | null = null): { data: string } => ({
    data: JSON.stringify({ id: 'x1', created: 7, choices: [{ index: 0, delta, finish_reason: finish }] }),
  });
  const { reader, events } = translateStream([
    chunk({ role: 'assistant', content: '' }),
    chunk({
      tool_calls: [
        { function: { name: 'a', arguments: '{"q":1}' } },
        { function: { name: 'b', arguments: { r: 2 } } },
      ],
    }),
    chunk({ content: 'and text' }),
    chunk({ refusal: 'but no' }, 'stop'),
    { data: '[DONE]' },
  ]);
  const data = payloads(events);
  checkNumbering(t, events);
  t.match((data.at(-1)!.response as JsonObject).output, [
    { id: 'fc_x1_0', type: 'function_call', call_id: 'call_0', name: 'a', arguments: '{"q":1}' },
    { id: 'fc_x1_1', type: 'function_call', call_id: 'call_1', name: 'b', arguments: '{"r":2}' },
    {
      id: 'msg_x1_2',
      type: 'message',
      content: [
        { type: 'output_text', text: 'and text' },
        { type: 'refusal', refusal: 'but no' },
      ],
    },
  ]);
  t.strictSame(steps(ofItem(data, 2)), [
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
    'response.output_text.done',
    'response.content_part.done',
    'response.content_part.added',
    'response.refusal.delta',
    'response.refusal.done',
    'response.content_part.done',
    'response.output_item.done',
  ]);
  t.equal((data[0]!.response as JsonObject).created_at, 7);
  t.ok(reader.complete);
  t.end();
});
