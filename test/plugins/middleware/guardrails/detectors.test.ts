/**
 * The PII detectors on real values and near misses, with exact offsets; what each holds at the end of a
 * stream; and that validator and libphonenumber-js load only when a detector first checks a candidate.
 */
import { spawnSync } from 'node:child_process';
import t from 'tap';
import {
  DETECTORS,
  detectorMatcher,
  type DetectorName,
} from '../../../../plugins/middleware/guardrails/finders/detectors';

/** What the detector finds in `text`, as the strings found. */
function found(name: DetectorName, text: string): string[] {
  return detectorMatcher(name)
    .find(text, 0)
    .map(({ start, end }) => text.slice(start, end));
}

const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi+Y3wlFl',
  'Proc-Type: 4,ENCRYPTED',
  'x7Fz0s2/+Xq==',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

const GITHUB = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;

interface Table {
  readonly name: DetectorName;
  readonly placeholder: string;
  /** Each is found whole, inside text on both sides. */
  readonly positives: readonly string[];
  /** None of these is found at all. */
  readonly negatives: readonly string[];
}

const TABLE: readonly Table[] = [
  {
    name: 'email',
    placeholder: '[EMAIL]',
    positives: ['jane.doe+work@example.co.uk', 'a_b%c@mail-server.io', 'X@Y.ORG'],
    negatives: ['not@an', 'a@b.c', '@example.com', 'user@-bad-.com', 'a..b@example.com'],
  },
  {
    name: 'phone',
    placeholder: '[PHONE]',
    positives: [
      '+1 415 555 2671',
      '+1 (415) 555-2671',
      '+44 20 7946 0958',
      '+4915112345678',
      '+33 1 23 45 67 89',
    ],
    // National numbers are not looked for: without a country they cannot be checked.
    negatives: ['+1 234', '+12223333333', '(415) 555-2671', '+0 123 456 789', 'version 1.2.3'],
  },
  {
    name: 'credit_card',
    placeholder: '[CARD]',
    positives: ['4111 1111 1111 1111', '4111-1111-1111-1111', '5500005555555559', '3782 822463 10005'],
    negatives: ['4111 1111 1111 1112', '1234567890123', '41111111111111111111', 'order 0000000000000000'],
  },
  {
    name: 'iban',
    placeholder: '[IBAN]',
    positives: ['DE89 3704 0044 0532 0130 00', 'GB82WEST12345698765432', 'NL91 ABNA 0417 1643 00'],
    negatives: ['DE88 3704 0044 0532 0130 00', 'XX89 3704 0044 0532 0130 00', 'DE89 3704'],
  },
  {
    name: 'ip_address',
    placeholder: '[IP]',
    positives: [
      '10.0.0.1',
      '192.168.254.3',
      '2001:db8::8a2e:370:7334',
      '::1',
      '::ffff:192.0.2.128',
      'fe80::1',
    ],
    negatives: ['999.1.1.1', '1.2.3', 'v1.2.3.4.5', '12:30:45', 'a :: b', '256.256.256.256'],
  },
  {
    name: 'secret',
    placeholder: '[SECRET]',
    positives: [
      'sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8xYz1',
      'sk-ant-api03-Ab3dEf6hIj9lMn2pQr5tUv8x_Yz-1',
      'sk-Ab3dEf6hIj9lMn2pQr5tUv8x',
      'AKIAIOSFODNN7EXAMPLE',
      GITHUB,
      'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
      PEM,
    ],
    negatives: ['ask-me', 'sk-short', 'Bearer of bad news', 'the bearer responsibilities.', 'AKIA1234'],
  },
];

void t.test('the table: one detector per name, each with its placeholder', (t) => {
  t.strictSame(Object.keys(DETECTORS).sort(), [
    'credit_card',
    'email',
    'iban',
    'ip_address',
    'phone',
    'secret',
  ]);
  for (const { name, placeholder } of TABLE) {
    t.equal(DETECTORS[name].name, name);
    t.equal(detectorMatcher(name).placeholder, placeholder, name);
  }
  t.end();
});

void t.test('real values are found whole, at their exact offsets', (t) => {
  for (const { name, positives } of TABLE) {
    for (const value of positives) {
      const text = `Details: ${value}. Thanks`;
      t.strictSame(
        detectorMatcher(name).find(text, 0),
        [{ start: 9, end: 9 + value.length }],
        `${name}: ${value}`,
      );
      t.strictSame(found(name, value), [value], `${name}: ${value} alone`);
    }
  }
  t.end();
});

void t.test('near misses are not found', (t) => {
  for (const { name, negatives } of TABLE) {
    for (const value of negatives) t.strictSame(found(name, `see ${value} here`), [], `${name}: ${value}`);
  }
  t.end();
});

void t.test('several in one text, and from an offset', (t) => {
  const text = 'Mail ann@example.com or bob@example.org, card 4111 1111 1111 1111 or 5500 0055 5555 5559.';
  t.strictSame(found('email', text), ['ann@example.com', 'bob@example.org']);
  t.strictSame(found('credit_card', text), ['4111 1111 1111 1111', '5500 0055 5555 5559']);
  t.strictSame(detectorMatcher('email').find(text, 6), [{ start: 24, end: 39 }]);
  t.end();
});

void t.test('a card number inside a longer number run is not taken apart', (t) => {
  t.strictSame(found('credit_card', 'ref 12 4111 1111 1111 1111'), ['4111 1111 1111 1111']);
  t.strictSame(found('credit_card', 'id 94111111111111111'), [], 'a 17-digit run failing Luhn');
  t.end();
});

void t.test('a private key cut off at the end of the text is still one', (t) => {
  const cut = `key:\n${PEM.slice(0, 80)}`;
  t.strictSame(found('secret', cut), [cut.slice(5)]);
  t.strictSame(found('secret', 'files that start with -----BEGIN PRIVATE KEY----- are keys!'), []);
  t.end();
});

void t.test('openFrom holds what could still become one, and releases the rest', (t) => {
  const cases: [DetectorName, string, string][] = [
    ['credit_card', 'my card is ', '4111 1111 11'],
    ['credit_card', 'my card is ', '4111 1111 1111 1111'],
    ['email', 'write to ', 'jane.doe@exam'],
    ['email', 'write to ', 'jane@example.com'],
    ['secret', 'key: ', 'sk-proj-abc'],
    ['secret', 'key: ', 'sk'],
    ['secret', 'key: ', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow'],
    ['phone', 'call ', '+1 415 55'],
    ['iban', 'pay to ', 'DE89 3704 00'],
    ['ip_address', 'host ', '192.168.1'],
  ];
  for (const [name, before, partial] of cases) {
    t.equal(detectorMatcher(name).openFrom(before + partial, 0), before.length, `${name}: ${partial}`);
  }
  const released: [DetectorName, string][] = [
    ['credit_card', 'my card is on file.'],
    ['credit_card', 'my card is 4111 1111 1111 1111.'],
    ['email', 'write to me!'],
    ['email', 'write to jane@example.com!'],
    ['secret', 'the task is done!'],
    ['secret', 'key: sk-proj-abc!'],
    ['phone', 'call me at 5.'],
    ['ip_address', 'at 10.0.0.1!'],
  ];
  for (const [name, text] of released)
    t.equal(detectorMatcher(name).openFrom(text, 0), text.length, `${name}: ${text}`);
  t.end();
});

void t.test('validator and libphonenumber-js load on the first check, not before', (t) => {
  const detectors = require.resolve('../../../../plugins/middleware/guardrails/finders/detectors');
  const script = `
    const loaded = () => Object.keys(require.cache).filter((f) => /node_modules\\/(validator|libphonenumber-js)\\//.test(f)).length > 0;
    const { detectorMatcher } = require(${JSON.stringify(detectors)});
    const before = loaded();
    detectorMatcher('credit_card').openFrom('card 4111 1111', 0);
    const afterOpen = loaded();
    detectorMatcher('credit_card').find('card 4111 1111 1111 1111', 0);
    console.log(JSON.stringify({ before, afterOpen, afterFind: loaded() }));
  `;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  t.equal(run.status, 0, run.stderr);
  t.strictSame(JSON.parse(run.stdout), { before: false, afterOpen: false, afterFind: true });
  t.end();
});
