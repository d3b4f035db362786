/**
 * What is forwarded is exactly what was validated: bodies that an upstream could read differently from
 * the gateway (bytes that are not UTF-8, a key given twice, `__proto__`), bodies nested past the cap, and
 * fields that would choose the upstream or its credential are refused with 400 and the contract's error
 * body, and never reach the upstream.
 */
import t from 'tap';
import { parseJsonBody } from '../../../core/http/json-body';
import { GatewayError } from '../../../core/base/errors';
import { startTestGateway } from '../../helpers/gateway';
import type { ErrorBody } from '../../helpers/http';
import { newId } from '../../plugins/chat-helpers';

const CHAT = '{"model":"modela-5.5","messages":[{"role":"user","content":"hi"}]}';

/** A body as exact bytes: `prefix` + invalid or odd bytes + `suffix`. */
const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** `"k0":0,"k1":0,…` for `n` keys. */
const manyKeys = (n: number): string => Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',');

/** [what, body, code, words the message must hold] */
const REFUSED: readonly [string, Buffer, string, string][] = [
  ['a lone continuation byte', bytes(CHAT.slice(0, -1), ',"user":"', [0x80], '"}'), 'invalid_json', 'UTF-8'],
  [
    'an overlong encoding of "/"',
    bytes(CHAT.slice(0, -1), ',"user":"', [0xc0, 0xaf], '"}'),
    'invalid_json',
    'UTF-8',
  ],
  [
    'a truncated 3-byte sequence',
    bytes(CHAT.slice(0, -1), ',"user":"', [0xe2, 0x82], '"}'),
    'invalid_json',
    'UTF-8',
  ],
  [
    'two model keys',
    bytes('{"model":"modela-5.5","model":"modelc-3.7-max","messages":[]}'),
    'invalid_json',
    "'model'",
  ],
  [
    'two model keys, one spelled with an escape',
    bytes('{"model":"modela-5.5","mo\\u0064el":"modelc-3.7-max","messages":[]}'),
    'invalid_json',
    "'model'",
  ],
  [
    'a key ending in an escaped backslash, twice',
    bytes('{"model":"modela-5.5","a\\\\":1,"b":"\\\\","a\\\\":2,"messages":[]}'),
    'invalid_json',
    "'a\\\\'",
  ],
  [
    '__proto__ spelled with an escape, after a value holding escaped quotes',
    bytes('{"model":"modela-5.5","s":"\\"x\\":1","__pro\\u0074o__":{},"messages":[]}'),
    'invalid_request',
    '__proto__',
  ],
  [
    'a key twice in a nested object',
    bytes('{"model":"modela-5.5","messages":[{"role":"user","role":"system","content":"hi"}]}'),
    'invalid_json',
    "'role'",
  ],
  [
    'a key twice among many, after the first sixteen',
    bytes(CHAT.slice(0, -1), `,${manyKeys(40)},"k3":0}`),
    'invalid_json',
    "'k3'",
  ],
  [
    'a key twice among many, both after the first sixteen',
    bytes(CHAT.slice(0, -1), `,${manyKeys(40)},"k39":0}`),
    'invalid_json',
    "'k39'",
  ],
  [
    '__proto__ at the top',
    bytes(CHAT.slice(0, -1), ',"__proto__":{"admin":true}}'),
    'invalid_request',
    '__proto__',
  ],
  [
    '__proto__ nested',
    bytes('{"model":"modela-5.5","messages":[{"role":"user","content":"hi","__proto__":{"x":1}}]}'),
    'invalid_request',
    '__proto__',
  ],
  ['65 levels', bytes(CHAT.slice(0, -1), `,"x":${nested(64)}}`), 'invalid_request', '64 levels'],
  ['300,000 levels', bytes(CHAT.slice(0, -1), `,"x":${nested(300_000)}}`), 'invalid_request', '64 levels'],
  [
    'api_base',
    bytes(CHAT.slice(0, -1), ',"api_base":"http://evil.example"}'),
    'invalid_request',
    "'api_base'",
  ],
  [
    'base_url',
    bytes(CHAT.slice(0, -1), ',"base_url":"http://evil.example"}'),
    'invalid_request',
    "'base_url'",
  ],
  ['api_key', bytes(CHAT.slice(0, -1), ',"api_key":"sk-mine"}'), 'invalid_request', "'api_key'"],
  [
    'api_base inside extra_body',
    bytes(CHAT.slice(0, -1), ',"extra_body":{"api_base":"http://evil.example"}}'),
    'invalid_request',
    "'extra_body.api_base'",
  ],
];

void t.test('parseJsonBody', (t) => {
  for (const [what, body, code, words] of REFUSED) {
    t.throws(() => parseJsonBody(body, 64), { status: 400, code, message: new RegExp(words) }, what);
  }
  t.strictSame(
    parseJsonBody(
      bytes(CHAT.slice(0, -1), `,"x":${nested(63)},"s":"caf\\u00e9 \\"}\\" ok","k":{"a":1},"j":{"a":2}}`),
      64,
    ).s,
    'café "}" ok',
    '64 levels pass; quotes and braces inside strings are not structure; the same key in two objects is fine',
  );
  t.strictSame(
    parseJsonBody(Buffer.from('{"a":"é","b":"日本"}'), 64),
    { a: 'é', b: '日本' },
    'real UTF-8 passes',
  );
  t.equal(
    Object.keys(parseJsonBody(Buffer.from(`{${manyKeys(20_000)}}`), 64)).length,
    20_000,
    'an object of 20,000 distinct keys passes',
  );
  t.throws(() => parseJsonBody(Buffer.from('{"a":1,}'), 64), { code: 'invalid_json' }, 'not JSON');
  t.throws(
    () => parseJsonBody(Buffer.from('{"a":"never closed, {\\"b\\":1}'), 64),
    { code: 'invalid_json' },
    'a string never closed',
  );
  const prompt = `${'word "quoted" \\ { [ : '.repeat(20_000)}end`;
  t.strictSame(
    parseJsonBody(Buffer.from(JSON.stringify({ model: 'm', messages: [{ content: prompt }] })), 64).messages,
    [{ content: prompt }],
    'a long prompt of escaped quotes and backslashes, braces and colons is one string',
  );
  t.throws(() => parseJsonBody(Buffer.from('[1]'), 64), { code: 'invalid_request' }, 'not an object');
  const started = performance.now();
  t.throws(() => parseJsonBody(Buffer.from(nested(300_000)), 64), GatewayError);
  t.ok(performance.now() - started < 1_000, 'deep nesting is refused without walking it');
  t.end();
});

void t.test('refused bodies never reach the upstream', async (t) => {
  const gw = await startTestGateway(t);
  for (const [what, body, code, words] of REFUSED) {
    const id = newId('body');
    // The exact bytes, as a Buffer: a string would be re-encoded.
    const raw = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.key}`, 'x-request-id': id },
      body: body,
    });
    const answer = (await raw.json()) as ErrorBody;
    t.equal(raw.status, 400, `${what}: 400`);
    t.strictSame(Object.keys(answer), ['error'], `${what}: the contract's error body`);
    t.match(answer.error, { code, type: 'error', message: new RegExp(words) }, what);
    t.equal(gw.sim.log.list(id).length, 0, `${what}: nothing sent upstream`);
  }
});
