/**
 * What makes two calls the same call: member order at any depth does not, the members a call's answer
 * does not depend on do not, and any other difference does, `__proto__` included.
 */
import fc from 'fast-check';
import t from 'tap';
import { cacheKey, digest } from '../../../../plugins/middleware/cache/cache-key';

type Body = Record<string, unknown>;
const key = (body: Body, stream = false): string => cacheKey('key:sk-a', 'chat', 'modela-5.5', stream, body);

/** `value` with every object's members in reverse order, as another client would write them. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).reverse();
  return Object.fromEntries(entries.map(([name, v]) => [name, reordered(v)]));
}

const bodies = fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 });

t.test('member order at any depth makes the same call', (t) => {
  fc.assert(fc.property(bodies, (body) => key(body) === key(reordered(body) as Body)));
  const messages = [{ role: 'user', content: 'hi' }];
  t.equal(
    key({ model: 'modela-5.5', messages, temperature: 0 }),
    key({ temperature: 0, messages: [{ content: 'hi', role: 'user' }], model: 'modela-5.5' }),
  );
  t.end();
});

t.test('any other difference makes another call', (t) => {
  fc.assert(
    fc.property(bodies, fc.string(), fc.jsonValue(), (body, name, value) => {
      fc.pre(!['stream', 'stream_options', 'metadata', 'user'].includes(name));
      fc.pre(JSON.stringify(body[name]) !== JSON.stringify(value));
      return key(body) !== key({ ...body, [name]: value });
    }),
  );
  t.end();
});

t.test('how the answer is delivered, and the client’s own labels, are not the question', (t) => {
  const body = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };
  const labelled = { ...body, stream_options: { include_usage: true }, metadata: { a: '1' }, user: 'u-1' };
  t.equal(key(labelled), key(body));
  t.not(key(body, true), key(body), 'a stream and a JSON answer are stored apart');
  t.end();
});

t.test('a member named __proto__ is part of the question', (t) => {
  const one = JSON.parse('{"user":"u","__proto__":{"a":1},"messages":[]}') as Body;
  const two = JSON.parse('{"user":"u","__proto__":{"a":2},"messages":[]}') as Body;
  t.not(key(one), key(two));
  t.not(key(one), key(JSON.parse('{"messages":[]}') as Body));
  t.end();
});

t.test('the scope, endpoint and model are part of the key', (t) => {
  const body = { messages: [] };
  const keys = new Set([
    cacheKey('key:sk-a', 'chat', 'modela-5.5', false, body),
    cacheKey('key:sk-b', 'chat', 'modela-5.5', false, body),
    cacheKey('key:sk-a', 'responses', 'modela-5.5', false, body),
    cacheKey('key:sk-a', 'chat', 'modela-5.4', false, body),
  ]);
  t.equal(keys.size, 4);
  t.end();
});

t.test('a digest never names a key', (t) => {
  const name = digest(key({ messages: [] }));
  t.match(name, /^#[\w-]{43}$/);
  t.not(name[0], key({ messages: [] })[0]);
  t.end();
});
