import t from 'tap';
import { DeferredCount } from '../../../core/proxy/deferred-count';

void t.test('texts are counted only when the total is asked for', (t) => {
  const read: string[] = [];
  const count = new DeferredCount((text) => (read.push(text), text.length));
  count.later('abc');
  count.add(10);
  count.later('de');
  t.strictSame(read, [], 'nothing read yet');
  t.equal(count.total(), 15);
  t.strictSame(read, ['abc', 'de']);
  t.equal(count.total(), 15, 'each text is counted once');
  t.end();
});

void t.test('past the held limit the texts are read and dropped', (t) => {
  const read: string[] = [];
  const count = new DeferredCount((text) => (read.push(text), 1), 5);
  count.later('abc');
  t.strictSame(read, []);
  count.later('def');
  t.strictSame(read, ['abc', 'def'], 'read once more than 5 characters were held');
  count.later('g');
  t.equal(count.total(), 3);
  t.end();
});

void t.test("whole SSE frames count each event's data, as the events would", (t) => {
  const read: string[] = [];
  const count = new DeferredCount((text) => (read.push(text), text.length));
  count.laterFrames(Buffer.from('data: {"d":"ab"}\n\n: ping\n\nevent: delta\ndata: x\ndata: yz\n\n'));
  count.later('pq');
  t.strictSame(read, [], 'nothing read yet');
  t.equal(count.total(), 10 + 4 + 2, 'each data counted, a comment none');
  t.strictSame(read, ['{"d":"ab"}', 'x\nyz', 'pq'], 'in the order they came');
  t.end();
});
