/**
 * A chat answer of the plainest form (one message of text) is read from its text without parsing it
 * (AnswerShape.plainTexts): it must give the texts a parse gives, whatever the text holds, and nothing for
 * an answer of any other form, which the stage then parses.
 */
import t from 'tap';
import fc from 'fast-check';
import { ANSWER_SHAPES } from '../../../../plugins/middleware/guardrails/texts/answer-shapes';

const chat = ANSWER_SHAPES['chat-completions']!;

/** A chat answer as OpenAI (and the simulator) writes it. */
function answer(message: Record<string, unknown>, choice: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1796002322,
    model: 'modela-5.5',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', ...message },
        logprobs: null,
        finish_reason: 'stop',
        ...choice,
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 12, total_tokens: 15 },
    service_tier: 'default',
    system_fingerprint: 'fp_sim0001',
  });
}

const parsedTexts = (raw: string): string[] =>
  chat.parts(JSON.parse(raw) as Record<string, unknown>).flatMap((part) => part.texts.map((s) => s.text));

t.test('the texts of a plain answer are those a parse finds', (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (content) => {
      const raw = answer({ content, refusal: null, annotations: [] });
      t.strictSame(chat.plainTexts!(raw), [content]);
      t.strictSame(parsedTexts(raw), [content]);
    }),
    { numRuns: 300 },
  );
  t.end();
});

t.test("OpenAI's answer, as the simulator writes it, is plain", (t) => {
  const raw =
    '{"id":"chatcmpl-2910f2d177db4dd88b4119c1","object":"chat.completion","created":1796002322,"model":"modela-5.5",' +
    '"choices":[{"index":0,"message":{"role":"assistant","content":"Lorem ipsum dolor","refusal":null,"annotations":[]},' +
    '"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6,' +
    '"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0}},"service_tier":"default","system_fingerprint":"fp_sim0001"}';
  t.strictSame(chat.plainTexts!(raw), ['Lorem ipsum dolor']);
  t.end();
});

t.test('an answer of any other form is left to the parse', (t) => {
  const others: Record<string, string> = {
    'a tool call': answer({
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    }),
    'a refusal': answer({ content: 'x', refusal: 'no' }),
    'two choices': answer({ content: 'x' }).replace(
      '}],"usage"',
      '},{"index":1,"message":{"role":"assistant","content":"y"},"finish_reason":"stop"}],"usage"',
    ),
    'written with spaces': JSON.stringify(JSON.parse(answer({ content: 'x' })), null, 1),
    'logprobs that say something': answer({ content: 'x' }, { logprobs: { content: [] } }),
  };
  for (const [name, raw] of Object.entries(others)) t.equal(chat.plainTexts!(raw), undefined, name);
  t.end();
});
