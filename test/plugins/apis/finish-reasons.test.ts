/**
 * Where each API's answers state their finish reasons, as a trace records them: whole answers and the
 * stream events that end them, never the events before.
 */
import t from 'tap';
import { ChatCompletionsApi } from '../../../plugins/apis/chat-completions';
import { MessagesApi } from '../../../plugins/apis/messages';
import { ResponsesApi } from '../../../plugins/apis/responses';
import type { JsonObject } from '../../../core/kit/json';
import type { ModelApi } from '../../../core/kit/upstream';

/** What a trace reads of `data`: nothing unless the marker matches, then the API's reader's answer. */
function reasons(api: ModelApi, data: string): readonly string[] | undefined {
  const finish = api.genAi.finishReasons;
  if (!finish?.marker.test(data)) return undefined;
  return finish.read(JSON.parse(data) as JsonObject);
}

t.test('chat completions: every choice of an answer; a chunk only once it has one', (t) => {
  const answer = { choices: [{ finish_reason: 'stop' }, { finish_reason: 'length' }] };
  t.strictSame(reasons(ChatCompletionsApi, JSON.stringify(answer)), ['stop', 'length']);
  t.equal(
    reasons(ChatCompletionsApi, '{"choices":[{"delta":{"content":"hi"},"finish_reason":null}]}'),
    undefined,
  );
  t.strictSame(reasons(ChatCompletionsApi, '{"choices":[{"delta":{},"finish_reason" : "tool_calls"}]}'), [
    'tool_calls',
  ]);
  t.end();
});

t.test('messages: a whole message, and the stream says it in message_delta', (t) => {
  t.strictSame(reasons(MessagesApi, '{"type":"message","stop_reason":"end_turn"}'), ['end_turn']);
  t.equal(reasons(MessagesApi, '{"type":"message_start","message":{"stop_reason":null}}'), undefined);
  t.strictSame(reasons(MessagesApi, '{"type":"message_delta","delta":{"stop_reason":"max_tokens"}}'), [
    'max_tokens',
  ]);
  t.end();
});

t.test('responses: a whole Response, and only the stream event that ends it', (t) => {
  const running = { object: 'response', status: 'in_progress' };
  t.equal(reasons(ResponsesApi, JSON.stringify({ type: 'response.created', response: running })), undefined);
  t.equal(
    reasons(ResponsesApi, JSON.stringify({ type: 'response.in_progress', response: running })),
    undefined,
  );
  const done = { object: 'response', status: 'completed', incomplete_details: null };
  t.strictSame(reasons(ResponsesApi, JSON.stringify({ type: 'response.completed', response: done })), [
    'completed',
  ]);
  const cut = {
    object: 'response',
    status: 'incomplete',
    incomplete_details: { reason: 'max_output_tokens' },
  };
  t.strictSame(reasons(ResponsesApi, JSON.stringify(cut)), ['max_output_tokens'], 'a JSON answer');
  t.strictSame(reasons(ResponsesApi, JSON.stringify({ type: 'response.incomplete', response: cut })), [
    'max_output_tokens',
  ]);
  t.end();
});
