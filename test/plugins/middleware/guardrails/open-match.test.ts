/**
 * The open form of a pattern against brute force: every prefix of a real match is held from where the
 * match starts, text that cannot begin a match is not held, and, for generated patterns, the open form
 * holds wherever some continuation of the text completes a match reaching its end (and, without
 * assertions, nowhere else). Then what a rule's pattern is refused for at load.
 */
import fc from 'fast-check';
import t from 'tap';
import {
  openSource,
  patternProblem,
  scanFlags,
} from '../../../../plugins/middleware/guardrails/finders/open-match';
import { patternMatcher } from '../../../../plugins/middleware/guardrails/finders/pattern-matcher';

/** Where the open form first matches in `text` from `from`: where a stream would start holding. */
function openAt(source: string, flags: string, text: string, from = 0): number {
  return patternMatcher(source, flags, '[X]').openFrom(text, from);
}

interface Case {
  readonly source: string;
  readonly flags: string;
  /** Whole matches: each prefix of each, after some text that begins none, must be held from its start. */
  readonly matches: readonly string[];
  /** Texts where no match can begin: nothing held. */
  readonly closed: readonly string[];
}

const key = 'Ab3dEf6hIj9lMn2pQr5tUv8x';

const CASES: readonly Case[] = [
  {
    source: 'Project Zephyr',
    flags: 'i',
    matches: ['Project Zephyr', 'PROJECT zephyr'],
    closed: ['the project zebra', 'projects', 'Zephyr', 'Project Zephyr!'],
  },
  {
    source: 'ignore (all )?previous instructions',
    flags: '',
    matches: ['ignore previous instructions', 'ignore all previous instructions'],
    closed: ['ignore most previous', 'Ignore previous', 'ignore all the previous'],
  },
  {
    source: '\\d{3}-\\d{4}',
    flags: '',
    matches: ['555-1234', '000-0000'],
    closed: ['call 12-', 'room 5551234 x', '555-123 is short'],
  },
  {
    source: 'sk-[A-Za-z0-9]{20,}',
    flags: '',
    matches: [`sk-${key}`, `sk-${key.slice(0, 20)}`],
    closed: ['ask me', 'sk_live', 'sk-', 'sk-abc!', `sk-${key} ok`].map((text) => `${text}.`),
  },
  {
    source: 'cat|dog|bird(ie)?',
    flags: '',
    matches: ['cat', 'dog', 'bird', 'birdie'],
    closed: ['a cow', 'dot', 'birds', 'birdy'],
  },
  {
    source: '#[0-9a-f]{6}[^0-9a-f]',
    flags: '',
    matches: ['#a0b1c2;', '#ffffff '],
    closed: ['#ggg', 'colour #12345z', '# 1'],
  },
  { source: 'Zéphyr', flags: 'i', matches: ['Zéphyr', 'ZÉPHYR'], closed: ['Zephyr', 'zéro'] },
  { source: 'Zéphyr', flags: 'iu', matches: ['zéphyr'], closed: ['Zephyr', 'zéro'] },
  {
    source: '[\\u{1F600}-\\u{1F64F}]{2}|\\u{1F525}\\s*fire',
    flags: 'u',
    // Cut by code units: a stream may end between the halves of a surrogate pair.
    matches: ['😀😃', '🔥 fire', '🔥fire'],
    closed: ['😀 then 😃!', '🔥 water', 'fire'],
  },
  {
    source: 'top\\.secret',
    flags: 'm',
    matches: ['top.secret'],
    closed: ['top secret!', 'topsecret!'],
  },
];

void t.test('each prefix of a match is held from where the match starts', (t) => {
  for (const { source, flags, matches } of CASES) {
    t.equal(patternProblem(source, flags), undefined, `/${source}/${flags} is a valid rule pattern`);
    for (const match of matches) {
      for (let end = 1; end <= match.length; end++) {
        const context = 'Say: ';
        const text = context + match.slice(0, end);
        t.equal(
          openAt(source, flags, text),
          context.length,
          `/${source}/${flags} on ${JSON.stringify(text)}`,
        );
      }
    }
  }
  t.end();
});

void t.test('text where no match can begin is not held', (t) => {
  for (const { source, flags, closed } of CASES) {
    for (const text of closed) {
      t.equal(openAt(source, flags, text), text.length, `/${source}/${flags} on ${JSON.stringify(text)}`);
    }
  }
  t.end();
});

void t.test('the scan starts at from, and lookbehinds see the text before it', (t) => {
  t.equal(openAt('\\d{3}-\\d{4}', '', '555-1234 and 555-12', 9), 13);
  t.equal(openAt('(?<=id )\\d{4}', '', 'id 12', 3), 3, 'after "id "');
  t.equal(openAt('(?<=id )\\d{4}', '', 'ab 12', 3), 5, 'not after anything else');
  t.end();
});

void t.test('assertions hold where the text ending could change them, not elsewhere', (t) => {
  t.equal(openAt('\\d{3}(?!\\d)', '', 'pin 1234'), 5, 'a fourth digit already there decides "123"');
  t.equal(openAt('\\d{3}(?!\\d)', '', 'pin 123'), 4, 'a fourth digit could still come');
  t.equal(openAt('\\bcat\\b', '', 'the cat'), 4);
  t.equal(openAt('\\bcat\\b', '', 'the cats.'), 9);
  t.equal(openAt('\\bcat\\b', '', 'concat'), 6, 'the word boundary before is decided');
  t.equal(openAt('^secret', 'm', 'a\nsec'), 2);
  t.equal(openAt('^secret', 'm', 'a sec'), 5);
  t.equal(openAt('end$', '', 'the end'), 4);
  t.equal(openAt('a(?=bc)', '', 'xab'), 1, 'the lookahead could still see bc');
  t.equal(openAt('a(?=bc)', '', 'xabd'), 4);
  t.end();
});

void t.test('a v class of strings holds no more than its longest string', (t) => {
  const source = '[\\q{abc|de}]!';
  t.ok(openAt(source, 'v', 'xyz ab') <= 4, 'holds "ab"');
  t.equal(openAt(source, 'v', 'xyz abc!'), 4, 'a whole match at the end');
  t.ok(openAt(source, 'v', 'hello world') >= 'hello world'.length - 3, 'at most three characters');
  t.end();
});

void t.test('a long literal compiles and holds its prefix (the nesting stays shallow)', (t) => {
  const literal = 'abcdefghij'.repeat(500);
  t.equal(patternProblem(literal, ''), undefined, 'the longest pattern allowed');
  t.equal(openAt(literal, '', `zz${literal.slice(0, 4000)}`), 2);
  t.equal(openAt(literal, '', `zz${literal.slice(0, 4000)}!`), 4003);
  t.end();
});

void t.test('patterns refused at load, and why', (t) => {
  for (const [source, flags] of [
    ['Project Zephyr', 'i'],
    ['sk-[A-Za-z0-9]{20,}', 'gy'],
    ['(?<key>[a-z]+)=\\d', ''],
    ['\\p{Lu}{2}', 'u'],
    ['[\\p{L}--[a-z]]x', 'v'],
  ]) {
    t.equal(patternProblem(source as string, flags as string), undefined, `/${source}/${flags} is fine`);
  }
  const refused: [string, string, RegExp][] = [
    ['(unclosed', '', /Unterminated group/],
    ['a', 'x', /flags/i],
    ['a*', '', /empty/],
    ['(?:)', '', /empty/],
    ['x?|y', '', /empty/],
    ['\\b', '', /empty/],
    ['^$', 'm', /empty/],
    ['[\\q{}]', 'v', /empty/],
    ['(a)\\1', '', /backreference/],
    ['(?<w>a)\\k<w>', '', /backreference/],
    [`${'(?:a|'.repeat(40)}b${')'.repeat(40)}`, '', /nest deeper/],
    [`${'('.repeat(2000)}a${')'.repeat(2000)}`, '', /nest deeper/],
    ['x'.repeat(5001), '', /longer than 5000 characters/],
  ];
  for (const [source, flags, why] of refused) {
    const problem = patternProblem(source, flags);
    t.match(problem, why, `/${source.slice(0, 30)}/${flags}`);
    t.ok((problem ?? '').length < 120, 'said in a line, the pattern not quoted');
  }
  t.end();
});

void t.test('scanFlags keeps what changes a match and adds g', (t) => {
  t.equal(scanFlags('gimsyd'), 'imsg');
  t.equal(scanFlags('v'), 'vg');
  t.end();
});

// Generated patterns over a, b, against every continuation of the text up to TAIL characters of a, b, c.

interface Generated {
  readonly source: string;
  /** At most this many characters complete any partial match (a bound, counted generously). */
  readonly need: number;
  /** Whether it holds an assertion (then the open form may hold more than brute force finds). */
  readonly asserts: boolean;
}

const TAIL = 3;
const ASSERTIONS = ['\\b', '\\B', '^', '$', '(?=a)', '(?!b)', '(?<=a)', '(?<!b)'];

function generated(withAssertions: boolean): fc.Arbitrary<Generated> {
  const { pattern } = fc.letrec<{ pattern: Generated; element: Generated; atom: Generated }>((tie) => ({
    atom: fc.oneof(
      { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
      fc.constantFrom('a', 'b', '[ab]', '[^a]', '.').map((source) => ({ source, need: 1, asserts: false })),
      tie('pattern').map((inner) => ({ ...inner, source: `(${inner.source})` })),
    ),
    element: fc.oneof(
      { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
      fc
        .tuple(tie('atom'), fc.constantFrom('', '?', '*', '+', '{1,2}', '{2}', '*?', '+?'))
        .map(([atom, quantifier]) => ({
          source: `${atom.source}${quantifier}`,
          need: atom.need * (quantifier === '{2}' ? 2 : 1),
          asserts: atom.asserts,
        })),
      ...(withAssertions
        ? [
            fc.constantFrom(...ASSERTIONS).map((source) => ({ source, need: 0, asserts: true })),
            fc
              .tuple(fc.constantFrom('(?=', '(?!', '(?<=', '(?<!'), tie('pattern'))
              .map(([opener, inner]) => ({ source: `${opener}${inner.source})`, need: 0, asserts: true })),
          ]
        : []),
    ),
    pattern: fc
      .array(fc.array(tie('element'), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 2 })
      .map((alternatives) => ({
        source: alternatives.map((sequence) => sequence.map((element) => element.source).join('')).join('|'),
        need: Math.max(...alternatives.map((sequence) => sequence.reduce((sum, e) => sum + e.need, 0))),
        asserts: alternatives.some((sequence) => sequence.some((element) => element.asserts)),
      })),
  }));
  return pattern;
}

/** Every string of a, b, c up to `length` characters, the empty one first. */
function tails(length: number): string[] {
  let level = [''];
  const all = [''];
  for (let i = 0; i < length; i++) {
    level = level.flatMap((tail) => ['a', 'b', 'c'].map((c) => tail + c));
    all.push(...level);
  }
  return all;
}

const TAILS = tails(TAIL);

/**
 * Brute force, for each position of `text`: whether some continuation of it has a match there that
 * reaches the end of `text`, or one ending before it that `text` alone does not have (a lookahead saw
 * the continuation). The lookbehinds pin where a match ends; lookarounds in it see all of the text.
 */
function couldStillMatch(source: string, text: string): boolean[] {
  const reaching = new RegExp(`(?:${source})(?<=^[\\s\\S]{${text.length},})`, 'y');
  const endingAt = Array.from(
    { length: text.length },
    (_, end) => new RegExp(`(?:${source})(?<=^[\\s\\S]{${end}})`, 'y'),
  );
  const matches = (regex: RegExp, subject: string, at: number): boolean => {
    regex.lastIndex = at;
    return regex.test(subject);
  };
  return Array.from({ length: text.length }, (_, at) =>
    TAILS.some(
      (tail) =>
        matches(reaching, text + tail, at) ||
        endingAt.some(
          (exact, end) => end >= at && matches(exact, text + tail, at) && !matches(exact, text, at),
        ),
    ),
  );
}

/** For each position of `text`, whether the open form matches there. */
function held(source: string, text: string): boolean[] {
  const open = new RegExp(openSource(source, ''), 'y');
  return Array.from({ length: text.length }, (_, at) => {
    open.lastIndex = at;
    return open.test(text);
  });
}

const texts = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 6 });

void t.test('generated patterns: held wherever a continuation completes a match, and only there', (t) => {
  fc.assert(
    fc.property(generated(false), texts, (pattern, text) => {
      const holds = held(pattern.source, text);
      // Brute force only sees continuations of TAIL characters: beyond that it cannot judge a hold.
      return couldStillMatch(pattern.source, text).every(
        (could, at) => could === holds[at] || (!could && pattern.need > TAIL),
      );
    }),
    { numRuns: 400, seed: 7 },
  );
  t.pass('400 generated patterns and texts');
  t.end();
});

void t.test('generated patterns with assertions: never held less than brute force finds', (t) => {
  fc.assert(
    fc.property(generated(true), texts, (pattern, text) => {
      const holds = held(pattern.source, text);
      return couldStillMatch(pattern.source, text).every((could, at) => !could || holds[at]);
    }),
    { numRuns: 400, seed: 11 },
  );
  t.pass('400 generated patterns with assertions');
  t.end();
});
