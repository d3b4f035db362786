/**
 * The strings a pattern's every match contains (needles.ts): what is found for the shapes rules take,
 * and that a text the gate turns away never holds a match (checked against V8 on generated texts).
 */
import t from 'tap';
import fc from 'fast-check';
import { RegExpParser } from '@eslint-community/regexpp';
import { gateOf, needlesOf } from '../../../../plugins/middleware/guardrails/finders/needles';
import { DETECTORS } from '../../../../plugins/middleware/guardrails/finders/detectors';

const parsed = (source: string, flags: string) =>
  new RegExpParser().parsePattern(source, 0, source.length, {
    unicode: flags.includes('u'),
    unicodeSets: flags.includes('v'),
  });

const needles = (source: string, flags = ''): readonly string[] | undefined =>
  needlesOf(parsed(source, flags), flags);

t.test('the needles of the shapes rules take', (t) => {
  t.strictSame(
    needles(String.raw`[a-z0-9-]+\.corp\.internal`),
    ['.corp.internal'],
    'a literal after a class',
  );
  t.strictSame(needles('Project (Zephyr|Boreas|Notus)'), ['Project '], 'the longest literal run');
  t.strictSame(needles(String.raw`TICKET-\d{4,8}`), ['TICKET-']);
  t.strictSame(needles('a(?:bc|bd)+e'), ['bc', 'bd'], 'a group: one of its alternatives');
  t.strictSame(needles('(?:ab){2}x?'), ['ab'], 'a repeated group');
  t.strictSame(needles('x?y*z{0,3}[abc]'), undefined, 'optional parts and classes pin nothing');
  t.strictSame(needles('(?<=abc)d'), ['d'], 'a lookbehind takes no character');
  t.strictSame(needles('ab|cd|ef'), undefined, 'three searches cost what the scan does');
  t.strictSame(needles('secret', 'i'), undefined, 'case-insensitive: no plain search');
  t.strictSame(needles('\u{1F600}+ok', 'u'), ['\u{1F600}'], 'an astral character, whole');
  t.strictSame(needles(DETECTORS.email.candidate), ['@']);
  t.strictSame(needles(DETECTORS.phone.candidate), ['+']);
  t.strictSame(needles(DETECTORS.ip_address.candidate), [':', '.']);
  t.strictSame(needles(DETECTORS.credit_card.candidate), undefined);
  t.end();
});

/** What the detectors' texts are made of: pieces of each kind of match, and of near misses. */
const DETECTOR_PIECES = ['jane', '@', 'example', '.com', '+44', ' 20', '7946', '0958', '4111', '1111'];
const MORE_PIECES = [':', '::1', '192.168', '.0.1', 'sk-', 'a'.repeat(20), ' '];

/**
 * Patterns, the pieces texts are made of so that some match and some come close, and one text of them
 * that matches (tried first, so every pattern is seen matching).
 */
const CASES: readonly { source: string; flags: string; pieces: readonly string[]; match: string[] }[] = [
  {
    source: String.raw`[a-z0-9-]+\.corp\.internal`,
    flags: '',
    pieces: ['db', '-', '.corp', '.internal', '.', ' '],
    match: ['db', '.corp', '.internal'],
  },
  { source: 'a(?:bc|bd)+e', flags: '', pieces: ['a', 'bc', 'bd', 'e', 'b'], match: ['a', 'bd', 'e'] },
  { source: '(?:ab){2}x?', flags: 'm', pieces: ['a', 'b', 'ab', 'x', '\n'], match: ['ab', 'ab'] },
  { source: '(?<=abc)d', flags: '', pieces: ['abc', 'd', 'ab', 'c'], match: ['abc', 'd'] },
  {
    source: '\u{1F600}+ok',
    flags: 'u',
    pieces: ['\u{1F600}', '\uD83D', 'o', 'k', 'ok'],
    match: ['\u{1F600}', 'ok'],
  },
  { source: '[\\q{xy}]z', flags: 'v', pieces: ['xy', 'z', 'x'], match: ['xy', 'z'] },
  ...(
    [
      ['email', ['jane', '@', 'example', '.com']],
      ['phone', ['+44', ' 20', '7946', '0958']],
      ['ip_address', ['192.168', '.0.1']],
    ] as const
  ).map(([name, match]) => ({
    source: DETECTORS[name].candidate,
    flags: '',
    pieces: [...DETECTOR_PIECES, ...MORE_PIECES],
    match: [...match],
  })),
];

t.test('a text the gate turns away holds no match', (t) => {
  for (const { source, flags, pieces, match } of CASES) {
    const gate = gateOf(parsed(source, flags), flags);
    if (gate === undefined) {
      t.fail(`${source} has a gate`);
      continue;
    }
    const regex = new RegExp(source, flags);
    let matched = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        if (!regex.test(text)) return;
        matched++;
        t.ok(gate(text), `${source} in ${JSON.stringify(text)}`);
      }),
      { numRuns: 500, examples: [[match]] },
    );
    t.ok(matched > 0, `some texts match ${source}`);
  }
  t.end();
});
