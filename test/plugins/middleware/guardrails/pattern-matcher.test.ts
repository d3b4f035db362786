/**
 * A pattern's Matcher: leftmost matches that do not overlap, from any offset, a detector's check
 * refusing candidates, and the open form telling where a stream starts holding; the same answers
 * however the calls interleave (both regexes are shared and reset on each call).
 */
import t from 'tap';
import type { Found } from '../../../../plugins/middleware/guardrails/finders/matcher';
import { patternMatcher } from '../../../../plugins/middleware/guardrails/finders/pattern-matcher';

const spans = (text: string, found: readonly Found[]): string[] =>
  found.map(({ start, end }) => text.slice(start, end));

void t.test('find: leftmost matches, not overlapping, from an offset', (t) => {
  const zephyr = patternMatcher('Project Zephyr', 'i', '[REDACTED]');
  const text = 'project zephyr and PROJECT ZEPHYR, not Project Zeph';
  t.strictSame(zephyr.find(text, 0), [
    { start: 0, end: 14 },
    { start: 19, end: 33 },
  ]);
  t.strictSame(zephyr.find(text, 1), [{ start: 19, end: 33 }], 'a match starting before from is not found');
  t.equal(zephyr.placeholder, '[REDACTED]');

  const pairs = patternMatcher('aa', '', 'X');
  t.strictSame(spans('aaaaa', pairs.find('aaaaa', 0)), ['aa', 'aa'], 'no overlap');
  t.strictSame(pairs.find('aaaaa', 1), [
    { start: 1, end: 3 },
    { start: 3, end: 5 },
  ]);

  const phone = patternMatcher('\\d{3}-\\d{4}', 'gy', 'X');
  t.strictSame(spans('a 555-1234 b 555-9876', phone.find('a 555-1234 b 555-9876', 0)), [
    '555-1234',
    '555-9876',
  ]);
  t.end();
});

void t.test('find skips empty matches instead of looping on them', (t) => {
  const stars = patternMatcher('a*', '', 'X');
  t.strictSame(stars.find('baab', 0), [{ start: 1, end: 3 }]);
  const emoji = patternMatcher('\\u{1F525}*', 'u', 'X');
  t.strictSame(emoji.find('😀🔥🔥x', 0), [{ start: 2, end: 6 }], 'offsets in code units');
  t.end();
});

void t.test('a refused candidate is no match, and the scan goes on from the next character', (t) => {
  const even = patternMatcher('\\d\\d', '', 'X', (candidate) => candidate !== '12');
  t.strictSame(even.find('123 12', 0), [{ start: 1, end: 3 }]);
  t.end();
});

void t.test('openFrom: the first place from `from` where a match could still be completed', (t) => {
  const key = patternMatcher('sk-[A-Za-z0-9]{20,}', '', '[SECRET]');
  t.equal(key.openFrom('my key is sk-abc', 0), 10);
  t.equal(key.openFrom('my key is sk-abc!', 0), 17, 'nothing open');
  t.equal(key.openFrom('sk-abc then sk', 3), 12, 'from skips what is before it');
  t.equal(key.openFrom('', 0), 0);
  const literal = patternMatcher('Zéphyr', 'iu', 'X');
  t.equal(literal.openFrom('le projet ZÉP', 0), 10);
  t.end();
});

void t.test('both regexes are reset on every call', (t) => {
  const digits = patternMatcher('\\d+', '', 'X');
  const text = '12 abc 345';
  for (let round = 0; round < 3; round++) {
    t.strictSame(digits.find(text, 0), [
      { start: 0, end: 2 },
      { start: 7, end: 10 },
    ]);
    t.equal(digits.openFrom(text, 0), 7, 'a number at the end may grow');
    t.equal(digits.openFrom('12 abc', 0), 6);
  }
  t.end();
});
