/**
 * The kit's chat client events are what OpenAI's chat completions stream holds: a chunk with its members
 * in OpenAI's order, the usage chunk with no choices, `[DONE]`, and the contract's error, each one line of
 * JSON data. (The families that write them, `modelf` and the scaffold's custom reader, are checked event
 * for event by their kit runs.)
 */
import t from 'tap';
import { CHAT_DONE, chatChunk, chatErrorEvent, chatUsage, chatUsageChunk } from '../../../core/kit/upstream';

const head = { id: 'chatcmpl-1', created: 1767225600, model: 'acme-1' };
const usage = { promptTokens: 12, completionTokens: 7, estimated: false };

void t.test('a chunk of the one choice, members in OpenAI order', (t) => {
  const first = chatChunk(head, { role: 'assistant', content: '' });
  t.equal(first.event, undefined, 'a data-only event');
  t.equal(
    first.data,
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"acme-1",' +
      '"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
  );
  t.same(JSON.parse(chatChunk(head, {}, 'length').data), {
    ...head,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
  });
  t.end();
});

void t.test('the usage chunk: no choices, the usage in the chat names', (t) => {
  t.same(JSON.parse(chatUsageChunk(head, usage).data), {
    ...head,
    object: 'chat.completion.chunk',
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  });
  t.end();
});

void t.test("usage carries OpenAI's details where the vendor gave them", (t) => {
  t.strictSame(chatUsage({ ...usage, reasoningTokens: 3, cacheReadTokens: 4 }), {
    prompt_tokens: 12,
    completion_tokens: 7,
    total_tokens: 19,
    prompt_tokens_details: { cached_tokens: 4 },
    completion_tokens_details: { reasoning_tokens: 3 },
  });
  t.end();
});

void t.test("the end marker and the contract's error", (t) => {
  t.strictSame(CHAT_DONE, { data: '[DONE]' });
  t.ok(Object.isFrozen(CHAT_DONE), 'one marker, shared by every reader: frozen');
  t.same(JSON.parse(chatErrorEvent('upstream_error', 'internal server error').data), {
    error: { code: 'upstream_error', message: 'internal server error', type: 'error' },
  });
  t.end();
});
