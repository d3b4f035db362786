/** Which chat chunks are read as a piece of text alone, and which are left to a whole parse. */
import t from 'tap';
import fc from 'fast-check';
import { PlainChunks } from '../../../plugins/translators/responses-chat/content-delta';

/** A chunk read by a fresh reader, as the first of a stream. */
const contentOnlyDelta = (data: string) => new PlainChunks().text(data);

const chunk = (choice: unknown, more: Record<string, unknown> = {}) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [choice], ...more });

t.test('a text-only delta is read; anything else is left to the whole parse', (t) => {
  const cases: [string, string, string | undefined][] = [
    ['text', chunk({ index: 0, delta: { content: 'Hel' }, finish_reason: null }), 'Hel'],
    [
      'escapes',
      chunk({ index: 0, delta: { content: 'a "q" \\ \n é 😀' }, finish_reason: null }),
      'a "q" \\ \n é 😀',
    ],
    ['empty text', chunk({ index: 0, delta: { content: '' }, finish_reason: null }), ''],
    [
      'text that looks like members',
      chunk({ index: 0, delta: { content: '"finish_reason":"stop","delta":{}' }, finish_reason: null }),
      '"finish_reason":"stop","delta":{}',
    ],
    [
      'with usage null',
      chunk({ index: 0, delta: { content: 'x' }, finish_reason: null }, { usage: null }),
      'x',
    ],
    ['a finish', chunk({ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }), undefined],
    ['no finish member', chunk({ index: 0, delta: { content: 'x' } }), undefined],
    [
      'a role too',
      chunk({ index: 0, delta: { role: 'assistant', content: 'x' }, finish_reason: null }),
      undefined,
    ],
    ['reasoning', chunk({ index: 0, delta: { reasoning_content: 'x' }, finish_reason: null }), undefined],
    [
      'tool calls',
      chunk({ index: 0, delta: { tool_calls: [{ index: 0 }] }, finish_reason: null }),
      undefined,
    ],
    [
      'two choices',
      JSON.stringify({
        choices: [
          { index: 0, delta: { content: 'a' }, finish_reason: null },
          { index: 1, delta: { content: 'b' }, finish_reason: null },
        ],
      }),
      undefined,
    ],
    ['spaced', '{"choices":[{"index":0,"delta": {"content": "x"},"finish_reason":null}]}', undefined],
    ['usage chunk', JSON.stringify({ choices: [], usage: { prompt_tokens: 1 } }), undefined],
    [
      'logprobs null between',
      chunk({ index: 0, delta: { content: 'x' }, logprobs: null, finish_reason: null }),
      'x',
    ],
    [
      'an escape written otherwise',
      chunk({ index: 0, delta: { content: '' }, finish_reason: null }).replace('""', '"\\u00e9\\/"'),
      'é/',
    ],
    [
      'a raw control character',
      chunk({ index: 0, delta: { content: 'a' }, finish_reason: null }).replace('"a"', '"a\tb"'),
      undefined,
    ],
    ['another choice index', chunk({ index: 1, delta: { content: 'x' }, finish_reason: null }), undefined],
  ];
  for (const [what, data, text] of cases) {
    const read = contentOnlyDelta(data);
    t.equal(read?.text, text, what);
    // The JSON goes into the client's event as it is: it must be what JSON.stringify writes.
    if (text !== undefined) t.equal(read?.json, JSON.stringify(text), `${what}: its JSON`);
  }
  t.end();
});

t.test('any text is read back with its JSON as JSON.stringify writes it', (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (text) => {
      const read = contentOnlyDelta(chunk({ index: 0, delta: { content: text }, finish_reason: null }));
      t.strictSame(read, { text, json: JSON.stringify(text) });
    }),
    { numRuns: 300 },
  );
  t.end();
});

t.test("one stream's reader finds each chunk's text, wherever its choice begins", (t) => {
  const reader = new PlainChunks();
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), fc.string(), (id, text) => {
      const read = reader.text(
        JSON.stringify({
          id,
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
        }),
      );
      t.strictSame(read, { text, json: JSON.stringify(text) });
    }),
    { numRuns: 300 },
  );
  t.end();
});

t.test('a chunk that only finishes its choice gives its reason; a usage chunk is empty', (t) => {
  const reader = new PlainChunks();
  t.equal(reader.finish(chunk({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' })), 'stop');
  t.equal(reader.finish(chunk({ index: 0, delta: {}, finish_reason: 'length' })), 'length');
  t.equal(reader.finish(chunk({ index: 0, delta: { content: 'x' }, finish_reason: 'stop' })), undefined);
  t.equal(reader.finish(chunk({ index: 0, delta: {}, finish_reason: null })), undefined);
  const usage = JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } });
  t.ok(reader.empty(usage), 'no choices: nothing for the Response');
  t.notOk(
    reader.empty(usage.replace('"usage"', '"error":{"message":"x"},"usage"')),
    'an error is read whole',
  );
  t.notOk(reader.empty(chunk({ index: 0, delta: {}, finish_reason: 'stop' })), 'a choice is not empty');
  t.end();
});

t.test('the opening chunk gives its id and time when it names the role alone', (t) => {
  const opening = (delta: unknown) =>
    JSON.stringify({
      id: 'chatcmpl-9a',
      object: 'chat.completion.chunk',
      created: 1796002322,
      model: 'm',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      usage: null,
    });
  t.strictSame(new PlainChunks().opening(opening({ role: 'assistant', content: '' })), {
    id: 'chatcmpl-9a',
    created: 1796002322,
  });
  t.equal(
    new PlainChunks().opening(opening({ role: 'assistant', content: 'Hi' })),
    undefined,
    'text: parsed',
  );
  t.equal(
    new PlainChunks().opening(opening({ role: 'assistant', content: null, tool_calls: [] })),
    undefined,
  );
  t.end();
});
