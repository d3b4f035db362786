/**
 * A JSON answer as the response phase sees it is parsed on demand and once: the body the family's reader
 * already parsed is handed over, and a body nobody parsed is parsed only when a stage asks.
 */
import t from 'tap';
import { ClientAnswer } from '../../../core/proxy/client-answer';
import { Errors } from '../../../core/base/errors';

t.test('the reader’s parse is handed over: no second parse', (t) => {
  const parsed = { id: 'a', usage: { total_tokens: 3 } };
  const answer = new ClientAnswer(200, {}, Buffer.from('{"id":"a","usage":{"total_tokens":3}}'), parsed);
  t.equal(answer.json(), parsed, 'the very object the reader read');
  t.end();
});

t.test('a body nobody parsed is parsed when first asked, then kept', (t) => {
  const answer = new ClientAnswer(200, {}, Buffer.from('{"id":"b"}'));
  const first = answer.json();
  t.strictSame(first, { id: 'b' });
  t.equal(answer.json(), first, 'parsed once');
  t.equal(new ClientAnswer(200, {}, Buffer.from('[1,2]')).json(), undefined, 'not an object');
  t.equal(new ClientAnswer(502, {}, Buffer.from('<html>')).json(), undefined, 'not JSON');
  t.end();
});

t.test('replace and refuse', (t) => {
  const answer = new ClientAnswer(200, {}, Buffer.from('{"id":"c"}'));
  answer.replace({ id: 'c', checked: true }, 201);
  t.equal(answer.status, 201);
  t.equal(answer.bytes.toString(), '{"id":"c","checked":true}');
  t.strictSame(answer.json(), { id: 'c', checked: true });
  const error = Errors.invalidRequest('no');
  answer.refuse(error);
  t.equal(answer.refused, error);
  t.end();
});
