import t from 'tap';
import fc from 'fast-check';
import { RepeatedMember, stringJson, withFirstMember } from '../../../core/base/json';

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

void t.test('withFirstMember writes what splicing the text would, whatever the characters', (t) => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 3 }).map((ws) => ws.replace(/\S/g, ' ')),
      fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue(), { minKeys: 1 }),
      fc.string({ unit: 'grapheme' }),
      (before, object, name) => {
        const raw = Buffer.from(`${before}${JSON.stringify(object)}`);
        const member = `${JSON.stringify(name)}:true`;
        const text = raw.toString();
        const open = text.indexOf('{') + 1;
        t.equal(
          withFirstMember(raw, member).toString(),
          `${text.slice(0, open)}${member},${text.slice(open)}`,
        );
      },
    ),
    { numRuns: 200 },
  );
  t.end();
});

t.test('RepeatedMember: where a key ends in each chunk, wherever the last one had it', (t) => {
  const key = '"choices":[';
  const members = new RepeatedMember(key);
  fc.assert(
    fc.property(fc.string({ maxLength: 20 }), fc.boolean(), (envelope, holds) => {
      const chunk = `{"id":${JSON.stringify(envelope)},${holds ? `${key}]` : '"usage":{}'}}`;
      const after = members.after(chunk);
      if (!holds) {
        t.equal(after, -1, chunk);
        return;
      }
      t.equal(chunk.slice(after - key.length, after), key, chunk);
      t.equal(chunk[after], ']', 'the value begins there');
    }),
    { numRuns: 300 },
  );
  t.end();
});

t.test('stringJson writes what JSON.stringify writes, escapes and lone surrogates included', (t) => {
  for (const text of ['resp_6b92', 'a"b', 'a\\b', 'line\nbreak', '\u2028', 'é', '\ud83d\ude00', '\ud83d', ''])
    t.equal(stringJson(text), JSON.stringify(text), `${text.length} code units`);
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (text) => stringJson(text) === JSON.stringify(text)),
    { numRuns: 2000 },
  );
  t.end();
});
