import t from 'tap';
import fc from 'fast-check';
import { holdsAt, withFirstMember } from '../../../core/base/json';

void t.test('withFirstMember adds one member and keeps the rest byte for byte', (t) => {
  const member = '"stream_options":{"include_usage":true}';
  const raw = Buffer.from('{"model":"m", "messages":[{"role":"user","content":"héllo"}],\n"stream":true}');
  const out = withFirstMember(raw, member);
  t.equal(
    out.toString(),
    `{${member},"model":"m", "messages":[{"role":"user","content":"héllo"}],\n"stream":true}`,
  );
  t.strictSame(JSON.parse(out.toString()), {
    stream_options: { include_usage: true },
    ...(JSON.parse(raw.toString()) as object),
  });
  t.end();
});

void t.test('withFirstMember keeps whitespace before the object', (t) => {
  const out = withFirstMember(Buffer.from(' \n{"a":1}'), '"b":2');
  t.equal(out.toString(), ' \n{"b":2,"a":1}');
  t.end();
});

t.test('holdsAt: a part at a position, nowhere else', (t) => {
  fc.assert(
    fc.property(fc.string(), fc.string({ minLength: 1 }), fc.nat(40), (text, part, at) => {
      t.equal(holdsAt(text, at, part), text.indexOf(part, at) === at);
    }),
    { numRuns: 300 },
  );
  t.ok(holdsAt('{"a":1,"choices":[', 7, '"choices":['));
  t.notOk(holdsAt('{"a":1,"choices":[', 6, '"choices":['));
  t.end();
});
