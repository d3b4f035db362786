/**
 * The memory store's names and bounds, and the reading of Cache-Control, without a gateway: a short key
 * is its own name, a long one is named by its digest, and both count against the memory bound.
 */
import t from 'tap';
import { MemoryCacheStore } from '../../../../plugins/middleware/cache/memory-store';
import { requestControl } from '../../../../plugins/middleware/cache/request-control';
import type { CacheEntry } from '../../../../plugins/middleware/cache/entry';

const entry = (text: string): CacheEntry => ({
  meta: {
    model: 'modela-5.5',
    key_id: 'sk-a',
    team_id: null,
    endpoint: 'chat',
    stored_at: 0,
    usage: { promptTokens: 1, completionTokens: 1, estimated: false },
  },
  body: text,
});

const TTL = 60_000;

t.test('keys short and long find their own entries, never another', (t) => {
  const store = new MemoryCacheStore(64 * 1024 * 1024, () => undefined);
  const short = 'key:sk-a\nchat\nmodela-5.5\njson\n{"messages":[]}';
  // Longer than V8 hashes a string by (16,383 characters), and of one length: named by their digests.
  const long = (word: string): string => `key:sk-a\nchat\nmodela-5.5\njson\n${word.repeat(5_000)}`;
  store.set(short, entry('short'), TTL);
  store.set(long('abcd'), entry('abcd'), TTL);
  store.set(long('wxyz'), entry('wxyz'), TTL);
  t.equal(store.get(short)?.body, 'short');
  t.equal(store.get(long('abcd'))?.body, 'abcd');
  t.equal(store.get(long('wxyz'))?.body, 'wxyz');
  t.equal(store.get(long('abce')), undefined, 'a long key stored by no call misses');
  t.equal(store.get(`${short} `), undefined);
  t.equal(store.size().entries, 3);
  t.end();
});

t.test('a name counts against the memory bound, a long one as its digest', (t) => {
  const store = new MemoryCacheStore(64 * 1024 * 1024, () => undefined);
  const body = 'x'.repeat(100);
  store.set('k'.repeat(1_000), entry(body), TTL);
  const withShortName = store.size().bytes;
  t.ok(withShortName >= 1_000 + body.length, `a 1,000-character name counted (${withShortName} bytes)`);
  const other = new MemoryCacheStore(64 * 1024 * 1024, () => undefined);
  other.set('k'.repeat(100_000), entry(body), TTL);
  t.ok(other.size().bytes < withShortName, 'a 100,000-character key is held by its digest');
  t.end();
});

t.test('the memory bound evicts the least recently used entry', (t) => {
  let evicted = 0;
  const store = new MemoryCacheStore(4_000, () => (evicted += 1));
  for (let i = 0; i < 10; i++) store.set(`key ${i}`, entry('y'.repeat(500)), TTL);
  t.ok(evicted > 0, `${evicted} evicted`);
  t.ok(store.size().bytes <= 4_000);
  t.equal(store.get('key 9')?.body, 'y'.repeat(500), 'the newest is kept');
  t.equal(store.get('key 0'), undefined, 'the oldest went first');
  t.end();
});

t.test('Cache-Control reads the same each time a value comes again', (t) => {
  for (let round = 0; round < 2; round++) {
    t.same(requestControl(undefined), { read: true, write: true, maxAge: undefined });
    t.same(requestControl('no-store'), { read: false, write: false, maxAge: undefined });
    t.same(requestControl('no-cache'), { read: false, write: true, maxAge: undefined });
    t.same(requestControl('max-age=30'), { read: true, write: true, maxAge: 30 });
    t.same(requestControl(['max-age=30', 'no-cache']), { read: false, write: true, maxAge: 30 });
    t.same(requestControl('No-Store, max-age=5'), { read: false, write: false, maxAge: undefined });
  }
  t.throws(() => {
    (requestControl('max-age=30') as { read: boolean }).read = false;
  }, 'a remembered answer cannot be changed by a caller');
  t.end();
});

t.test('more distinct values than are remembered are each read right', (t) => {
  const read = Array.from({ length: 1_000 }, (_, i) => requestControl(`max-age=${i}`).maxAge);
  t.same(
    read,
    Array.from({ length: 1_000 }, (_, i) => i),
  );
  t.equal(requestControl('max-age=0').maxAge, 0, 'a value remembered no longer is read again');
  t.end();
});
