/**
 * The parts of `modelf`'s translation the kit's answers do not reach: the request table (every field
 * renamed or refused, never passed on in OpenAI's spelling), and the reader's rarer paths (a stream end
 * without usage, a TIMEOUT, a vendor's `[DONE]`, a JSON answer without usage or with a failed finish).
 */
import 'reflect-metadata';
import t from 'tap';
import { eventsOf, type ClientEvents, type SseEvent } from '../../core/kit/plugin';
import type { ModelSpec } from '../../core/kit/upstream';
import { ChatCompletionsApi } from '../../plugins/apis/chat-completions';
import { CohereChatReader } from '../fixtures/plugins/modelf/reader';
import { vendorBody } from '../fixtures/plugins/modelf/request';

const MODEL: ModelSpec = {
  id: 'modelf-command-a',
  api: ChatCompletionsApi,
  created: 0,
  ownedBy: 'modelf',
  limits: { max_output_tokens: 8_192 },
};
const hi = [{ role: 'user', content: 'hi' }];
const refusal = (field: string) => ({ status: 400, code: 'unsupported_field', message: new RegExp(field) });

t.test('the request table renames what Cohere has under another name and sends nothing else', (t) => {
  const body = vendorBody(
    {
      model: MODEL.id,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 10,
      temperature: null,
      top_p: 0.5,
      stop: 'END',
      seed: 3,
    },
    MODEL,
    'command-a-03-2025',
  );
  t.strictSame(body, {
    model: 'command-a-03-2025',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ],
    stream: true,
    max_tokens: 10,
    p: 0.5,
    stop_sequences: ['END'],
    seed: 3,
  });
  t.end();
});

t.test('a field or message Cohere has no counterpart for is refused, naming it', (t) => {
  const refused = (extra: Record<string, unknown>, field: string) =>
    t.throws(
      () => vendorBody({ model: MODEL.id, messages: hi, ...extra }, MODEL, MODEL.id),
      refusal(field),
      field,
    );
  refused({ n: 2 }, "'n'");
  refused({ tools: [{}] }, "'tools'");
  refused({ max_completion_tokens: 5 }, "'max_completion_tokens'");
  refused({ constructor: 1 }, "'constructor'");
  refused(
    { messages: [{ role: 'tool', content: 'x', tool_call_id: 'a' }] },
    "'messages\\[0\\].role' as 'tool'",
  );
  refused(
    { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x' } }] }] },
    "'messages\\[0\\].content\\[0\\]' of type 'image_url'",
  );
  t.throws(() => vendorBody({ model: MODEL.id, messages: hi, max_tokens: 9_000 }, MODEL, MODEL.id), {
    status: 400,
    message: /at most 8192/,
  });
  t.end();
});

const parsed = (out: ClientEvents): unknown[] =>
  eventsOf(out).map((ev): unknown => (ev.data === '[DONE]' ? '[DONE]' : JSON.parse(ev.data)));
const cohere = (data: object): SseEvent => ({ event: 'x', data: JSON.stringify(data) });
const text = (s: string) => cohere({ type: 'content-delta', delta: { message: { content: { text: s } } } });

t.test('a stream that ends without usage is estimated, in the record and in the usage chunk', (t) => {
  const reader = new CohereChatReader('modelf-command-a', true, () => 3);
  t.equal(reader.event({ data: '[DONE]' }), null, "a vendor's [DONE] is not passed on");
  reader.event(text('12345678'));
  const end = parsed(
    reader.event(cohere({ type: 'message-end', delta: { finish_reason: 'STOP_SEQUENCE' } })),
  );
  t.match(end, [
    { choices: [{ finish_reason: 'stop' }] },
    { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } },
    '[DONE]',
  ]);
  t.ok(reader.complete);
  t.strictSame(reader.usage(), { promptTokens: 3, completionTokens: 2, estimated: true });
  t.end();
});

t.test('a TIMEOUT is a failure: an error event, no finish and no end marker', (t) => {
  const reader = new CohereChatReader('modelf-command-a', true, () => 3);
  const end = parsed(reader.event(cohere({ type: 'message-end', delta: { finish_reason: 'TIMEOUT' } })));
  t.match(end, [{ error: { code: 'upstream_timeout', message: /TIMEOUT/, type: 'error' } }]);
  t.equal(end.length, 1);
  t.ok(reader.failed);
  t.notOk(reader.complete);
  t.end();
});

t.test('a JSON answer without usage gets an estimate; a failed one no finish reason', (t) => {
  const reader = new CohereChatReader('modelf-command-a', false, () => 3);
  const { usage, replace } = reader.json({
    id: 'a',
    finish_reason: 'ERROR',
    message: { role: 'assistant', content: [{ type: 'text', text: 'abcd' }] },
  });
  t.strictSame(usage, { promptTokens: 3, completionTokens: 1, estimated: true });
  t.match(replace, {
    id: 'a',
    object: 'chat.completion',
    model: 'modelf-command-a',
    choices: [{ message: { role: 'assistant', content: 'abcd' }, finish_reason: null }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
  t.end();
});
