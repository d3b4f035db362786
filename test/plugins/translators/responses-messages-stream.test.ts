/**
 * Recorded messages streams as Responses streams, event by event, through the messages family's own
 * reader as the endpoint will wire it: text, thinking then text (its signature sealed when asked), text
 * then a tool call, an in-stream `error` event, a cut, and an answer cut short by `max_tokens`. Each is
 * checked for the API's order, numbering and names, and its events' members against OpenAI's recorded
 * streams (test/kit/fixtures/responses/).
 */
import 'reflect-metadata';
import t from 'tap';
import type { JsonObject } from '../../../core/kit/json';
import {
  deltaText,
  goldenEvents,
  missingAgainst,
  missingMembers,
  NOT_WRITTEN,
  ofItem,
  payloads,
  REASONING_STEPS,
  steps,
  withData,
  checkCutFrames,
  checkCutShort,
  checkNumbering,
} from './responses-helpers';
import {
  MESSAGES_MODEL,
  messagesEvents,
  translateMessagesStream,
  translateRecorded,
} from './responses-messages-helpers';

const responseOf = (event: JsonObject | undefined): JsonObject => event?.response as JsonObject;

t.test('a text stream: the API steps, numbered, with the usage the family read', (t) => {
  const { reader, events, data } = translateRecorded('fixtures/modeld/stream-text.sse');
  const golden = goldenEvents('stream-text.jsonl');
  checkNumbering(t, events);
  t.same(missingAgainst(data, golden), [], "every member of OpenAI's events");
  const text = deltaText(data);
  t.equal(text, 'Hello there!');
  t.strictSame(
    steps(data),
    steps(golden),
    "the recorded stream's steps (three deltas are one step, as OpenAI's one delta)",
  );
  const completed = data.at(-1)!;
  t.match(completed, {
    type: 'response.completed',
    response: {
      status: 'completed',
      model: MESSAGES_MODEL.id,
      output: [{ type: 'message', status: 'completed', content: [{ type: 'output_text', text }] }],
      usage: { input_tokens: 11, output_tokens: 6, total_tokens: 17 },
    },
  });
  const id = String(responseOf(completed).id);
  t.match(id, /^resp_/, 'a Response id');
  t.equal(responseOf(data[0]).id, id, 'one id throughout');
  t.ok(reader.complete);
  t.notOk(reader.failed);
  t.strictSame(reader.usage(), { promptTokens: 11, completionTokens: 6, estimated: false });
  t.end();
});

t.test('an answer cut by max_tokens ends with response.incomplete', (t) => {
  const recorded = messagesEvents('fixtures/modeld/stream-text.sse');
  const cut = withData(recorded, '"stop_reason":"end_turn"', '"stop_reason":"max_tokens"');
  const { reader, events } = translateMessagesStream(cut);
  checkCutShort(t, reader, events);
  t.end();
});

t.test('a thinking stream: a reasoning item of reasoning_text, sealed with the signature when asked', (t) => {
  const body = {
    model: MESSAGES_MODEL.id,
    input: 'hi',
    stream: true,
    include: ['reasoning.encrypted_content'],
  };
  const { reader, events, data } = translateRecorded('fixtures/modeld/stream-thinking.sse', body);
  checkNumbering(t, events);
  t.strictSame(steps(ofItem(data, 0)), REASONING_STEPS, 'a reasoning item');
  const done = data.find((e) => e.type === 'response.output_item.done');
  t.match(done, {
    item: {
      id: 'rs_01Y6V41gqPaKWEw7iPouH7iW_0',
      type: 'reasoning',
      encrypted_content: /^EvQBCkYIC/,
      summary: [],
      content: [{ type: 'reasoning_text', text: /^The previous result was 925\./ }],
    },
  });
  t.notOk(
    data.some((e) => e.type === 'response.reasoning_text.delta' && e.delta === ''),
    'an empty delta is not written',
  );
  t.match(responseOf(data.at(-1)).output, [
    { type: 'reasoning', encrypted_content: String },
    { id: 'msg_01Y6V41gqPaKWEw7iPouH7iW_1', type: 'message', content: [{ text: '925 ÷ 5 = 185' }] },
  ]);
  t.match(responseOf(data.at(-1)).usage, { input_tokens: 69, output_tokens: 53 });
  t.ok(reader.complete);

  const unsealed = payloads(
    translateMessagesStream(messagesEvents('fixtures/modeld/stream-thinking.sse')).events,
  );
  const item = (responseOf(unsealed.at(-1)).output as JsonObject[])[0]!;
  t.notOk('encrypted_content' in item, 'not sealed unless the client asked');
  t.end();
});

t.test('text then a tool call: a message, then a function_call streaming its arguments', (t) => {
  const { reader, events, data } = translateRecorded('fixtures/modeld/stream-tool-use.sse');
  const golden = goldenEvents('stream-function-call.jsonl');
  checkNumbering(t, events);
  // The recorded stream's only item is its call; ours is the second, after the text.
  t.same(missingAgainst(ofItem(data, 1), golden), [], "every member of OpenAI's call events");
  const goldenCall = (responseOf(golden.at(-1)).output as JsonObject[])[0];
  const call = (responseOf(data.at(-1)).output as JsonObject[])[1];
  t.same(missingMembers(call, goldenCall, NOT_WRITTEN), [], "every member of OpenAI's call item");
  t.strictSame(
    steps(ofItem(data, 1)),
    steps(golden.filter((e) => e.output_index === 0)),
    "the recorded call's steps",
  );
  t.match(
    data.find((e) => e.type === 'response.function_call_arguments.done'),
    {
      arguments: '{"location": "Paris"}',
      name: 'get_weather',
      output_index: 1,
    },
  );
  t.match(responseOf(data.at(-1)), {
    status: 'completed',
    output: [
      { type: 'message', content: [{ text: "I'll check the current weather in Paris for you." }] },
      {
        id: 'fc_019Q1hrJbZG26Fb9BQhrkHEr_1',
        type: 'function_call',
        status: 'completed',
        call_id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
        name: 'get_weather',
        arguments: '{"location": "Paris"}',
      },
    ],
  });
  t.ok(reader.complete);
  t.end();
});

t.test("an upstream's error event: the error event in both shapes, then response.failed", (t) => {
  const { reader, events, data } = translateRecorded('kit/fixtures/modeld/stream-error-overloaded.sse');
  const golden = goldenEvents('stream-error.jsonl');
  checkNumbering(t, events);
  t.same(missingAgainst(data, golden), [], "every member of OpenAI's events");
  t.strictSame(steps(data).slice(-2), ['error', 'response.failed'], 'ends as the recorded failure');
  t.match(data.at(-2), {
    type: 'error',
    message: 'Overloaded',
    error: { type: 'overloaded_error', message: 'Overloaded' },
  });
  t.match(responseOf(data.at(-1)), {
    status: 'failed',
    error: { code: 'overloaded_error', message: 'Overloaded' },
    output: [{ type: 'message', status: 'incomplete', content: [{ text: 'Hello there' }] }],
  });
  t.ok(reader.failed);
  t.notOk(reader.complete);
  t.end();
});

t.test('a cut stream ends with the numbered error event and response.failed, once', (t) => {
  const { reader, data } = translateRecorded('kit/fixtures/modeld/stream-cut-before-usage.sse');
  t.notOk(reader.complete);
  checkCutFrames(t, reader, data.length, 'modeld-main');
  t.end();
});

t.test('a tool call with no input streamed gets its opening input; pings say nothing', (t) => {
  const ev = (data: JsonObject) => ({ event: String(data.type), data: JSON.stringify(data) });
  const { events } = translateMessagesStream([
    ev({ type: 'message_start', message: { id: 'msg_x1', usage: { input_tokens: 2, output_tokens: 1 } } }),
    ev({ type: 'ping' }),
    ev({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 't1', name: 'now', input: {} },
    }),
    ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } }),
    ev({ type: 'content_block_stop', index: 0 }),
    ev({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } }),
    ev({ type: 'message_stop' }),
  ]);
  const data = payloads(events);
  checkNumbering(t, events);
  t.match(responseOf(data.at(-1)).output, [
    { id: 'fc_x1_0', type: 'function_call', call_id: 't1', name: 'now', arguments: '{}' },
  ]);
  t.end();
});
