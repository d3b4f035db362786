import t from 'tap';
import { topLevelMember } from '../../../core/proxy/top-level-member';

const USAGE = '{"prompt_tokens":9,"completion_tokens":12,"prompt_tokens_details":{"cached_tokens":0}}';

/** [what, body, the member text expected] */
const CASES: readonly [string, string, string | undefined][] = [
  ['a chat response', `{"id":"c1","choices":[{"message":{"content":"hi"}}],"usage":${USAGE}}`, USAGE],
  ['usage first, members after it', `{"usage":${USAGE},"system_fingerprint":"fp"}`, USAGE],
  ['whitespace around everything', `\n { "usage" : ${USAGE} ,"x":1 }\r\n`, USAGE],
  ['no usage', '{"id":"c1","choices":[]}', undefined],
  ['usage only nested', `{"choices":[{"usage":${USAGE}}],"meta":{"usage":{"a":1}}}`, undefined],
  ['usage is null', '{"usage":null}', undefined],
  ['the last of two wins (as in JSON.parse)', `{"usage":{"a":1},"usage":${USAGE}}`, USAGE],
  ['a later null wins over an object', `{"usage":${USAGE},"usage":null}`, undefined],
  ['"usage" as a value is not a key', `{"usage":${USAGE},"note":"usage"}`, USAGE],
  ['inside a string', '{"content":"{\\"usage\\":{\\"prompt_tokens\\":1}}"}', undefined],
  ['escaped backslash before a quote', `{"content":"a\\\\","usage":${USAGE}}`, USAGE],
  ['brackets inside strings', `{"content":"}]{[","usage":${USAGE}}`, USAGE],
  ['a key that only starts with usage', '{"usage_extra":{"a":1}}', undefined],
  ['an array, not an object', `[{"usage":${USAGE}}]`, undefined],
  ['two objects', `{"usage":${USAGE}}{"a":1}`, undefined],
  ['cut short', `{"usage":${USAGE}`, undefined],
  ['a string never closed', '{"content":"abc', undefined],
  ['more closed than opened', `{"usage":${USAGE}}}`, undefined],
  ['a nested usage after the top-level one', `{"usage":${USAGE},"choices":[{"usage":{"a":1}}]}`, USAGE],
  ['the last "usage" ends a key with an escaped quote', `{"usage":${USAGE},"say \\"usage":{"a":1}}`, USAGE],
  ['the last "usage" ends a string value', `{"usage":${USAGE},"note":"say \\"usage"}`, USAGE],
  ['usage is an array', '{"usage":[{"a":1}]}', undefined],
  ['usage last, then only whitespace', `{"id":"c1","usage":${USAGE}}  \n`, USAGE],
];

void t.test('finds the top-level member as JSON.parse would read it', (t) => {
  for (const [what, body, expected] of CASES) t.equal(topLevelMember(body, 'usage'), expected, what);
  t.end();
});

void t.test('agrees with JSON.parse on every valid case', (t) => {
  for (const [what, body, expected] of CASES) {
    let parsed: unknown;
    try {
      parsed = (JSON.parse(body) as { usage?: unknown }).usage;
    } catch {
      continue; // not JSON: the caller parses the whole body and finds it is not
    }
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    if (Array.isArray(JSON.parse(body))) continue;
    t.strictSame(
      expected === undefined ? undefined : JSON.parse(expected),
      isObject ? parsed : undefined,
      what,
    );
  }
  t.end();
});

void t.test('read from the end, a malformed body before the member is not judged', (t) => {
  // The member after the last `"usage"` closes the text: the vendor's usage is read, and the body is
  // relayed as it came. Read from the start, the same text places nothing.
  t.equal(topLevelMember(`{"a":{"usage":${USAGE}}`, 'usage'), USAGE);
  t.end();
});

void t.test('a long generated text costs no more than its quotes', (t) => {
  const content = 'word '.repeat(50_000);
  const body = JSON.stringify({ choices: [{ message: { content } }], usage: JSON.parse(USAGE) as unknown });
  t.equal(topLevelMember(body, 'usage'), USAGE);
  t.end();
});
