/**
 * Events that carry nothing but a piece of text are read from their own text, not parsed (the shapes'
 * `bare`): the client must get exactly what it gets when every event is parsed and read whole, whatever
 * the text holds (escapes, quotes, characters outside the BMP, matches split anywhere). Chunks of any
 * other form are parsed, and still guarded.
 */
import t from 'tap';
import fc from 'fast-check';
import type { SseEvent } from '../../../../core/base/sse';
import {
  chatStream,
  chatText,
  drive,
  json,
  literal,
  messagesStream,
  messagesText,
  rule,
  type Run,
} from './stream-guard-helpers';

const RULES = [
  rule('no-secret', 'block', literal('secret')),
  rule('mask-cat', 'mask', literal('cat', '[CAT]')),
  rule('log-dog', 'log', literal('dog')),
];

/** Pieces made of words the rules find, text JSON escapes, and characters of two UTF-16 units. */
const piece = fc
  .array(
    fc.constantFrom('sec', 'ret', 'ca', 't', 'dog', ' ', 'a', '"', '\\', '\n', '\t', 'é', '😀', '\u2028'),
    {
      maxLength: 4,
    },
  )
  .map((parts) => parts.join(''));

/** What a client makes of a run: its text, the rules that acted, and how the stream ended. */
const seen = (run: Run, text: (events: readonly SseEvent[]) => string) => ({
  text: text(run.client),
  acted: run.acted,
  final: run.final?.map((ev) => ev.data.replace(/"id":"[^"]*"/, '')),
});

t.test('chat: reading bare chunks from their text gives the client what parsing gives', (t) => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), fc.boolean(), (pieces, includeUsage) => {
      const events = chatStream(pieces, { usage: includeUsage });
      const fast = drive('chat-completions', RULES, events, { includeUsage });
      const parsed = drive('chat-completions', RULES, events, { includeUsage, parseAll: true });
      t.strictSame(seen(fast, chatText), seen(parsed, chatText));
    }),
    { numRuns: 300 },
  );
  t.end();
});

t.test('messages: reading bare deltas from their text gives the client what parsing gives', (t) => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), fc.boolean(), (pieces, tool) => {
      const events = messagesStream(pieces, { tool });
      const fast = drive('messages', RULES, events);
      const parsed = drive('messages', RULES, events, { parseAll: true });
      t.strictSame(seen(fast, messagesText), seen(parsed, messagesText));
    }),
    { numRuns: 300 },
  );
  t.end();
});

t.test('a clean bare chunk goes on as the upstream wrote it; a masked one is written anew', (t) => {
  const events = chatStream(['a "quoted" cat', ' and more']);
  const run = drive('chat-completions', RULES, events);
  t.ok(run.steps[0]!.kept, 'the role chunk (parsed) goes as it came');
  const masked = run.steps[1]!.out;
  t.equal(masked.length, 1, 'a piece whose match is whole goes at once');
  t.notOk(run.steps[1]!.kept);
  t.match(json(masked[0]!), {
    id: 'chatcmpl-sim1',
    object: 'chat.completion.chunk',
    model: 'modela-5.5',
    choices: [{ index: 0, delta: { content: 'a "quoted" [CAT]' }, finish_reason: null }],
  });
  t.ok(run.steps[2]!.kept, 'the next, clean, goes as it came');
  t.equal(chatText(run.client), 'a "quoted" [CAT] and more');
  t.end();
});

t.test('chunks that are not plainly one piece are parsed, and still guarded', (t) => {
  const head = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":';
  const role = {
    data: `${head}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
  };
  const shapes = [
    // a usage member on a content chunk
    `${head}[{"index":0,"delta":{"content":"a secret"},"finish_reason":null}],"usage":{"total_tokens":3}}`,
    // logprobs that say something
    `${head}[{"index":0,"delta":{"content":"a secret"},"logprobs":{"content":[]},"finish_reason":null}]}`,
    // spaces between members
    `${head} [ {"index": 0, "delta": {"content": "a secret"}, "finish_reason": null} ] }`,
    // the index after the delta
    `${head}[{"delta":{"content":"a secret"},"index":0,"finish_reason":null}]}`,
    // a finish on the same chunk
    `${head}[{"index":0,"delta":{"content":"a secret"},"finish_reason":"stop"}]}`,
  ];
  for (const data of shapes) {
    const run = drive('chat-completions', RULES, [role, { data }, { data: '[DONE]' }]);
    t.equal(chatText(run.client), 'a ', data);
    t.same(run.acted, ['no-secret:block'], data);
  }
  t.end();
});

t.test('an escaped piece is read as the text it stands for', (t) => {
  const events = chatStream(['x']);
  events[1] = { data: events[1]!.data.replace('"content":"x"', '"content":"a s\\u0065cr\\u0065t"') };
  const run = drive('chat-completions', RULES, events);
  t.equal(chatText(run.client), 'a ');
  t.same(run.acted, ['no-secret:block']);
  t.end();
});
