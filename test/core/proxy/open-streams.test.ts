import t from 'tap';
import fc from 'fast-check';
import { OpenStreams, type OpenStream } from '../../../core/proxy/open-streams';
import type { StreamRelay } from '../../../core/proxy/stream-relay';

/** A stand-in relay: the list only keeps it and hands it back. */
const relay = (n: number): StreamRelay => ({ n }) as unknown as StreamRelay;

const sorted = (relays: readonly StreamRelay[]): number[] =>
  relays.map((r) => (r as unknown as { n: number }).n).sort((a, b) => a - b);

void t.test('streams are found by key until they end', (t) => {
  const streams = new OpenStreams();
  const a = streams.add(relay(1), 'key-a');
  const b = streams.add(relay(2), 'key-b');
  streams.add(relay(3), 'key-a');
  streams.add(relay(4), undefined);
  t.equal(streams.size, 4);
  t.strictSame(sorted(streams.relays('key-a')), [1, 3]);
  t.strictSame(streams.keys().sort(), ['key-a', 'key-b']);
  streams.remove(b);
  t.notOk(streams.hasKey('key-b'), 'a key leaves with its last stream');
  streams.remove(a);
  streams.remove(a);
  t.equal(streams.size, 2, 'a second removal does nothing');
  t.strictSame(sorted(streams.relays()), [3, 4]);
  t.ok(streams.hasKey('key-a'));
  t.end();
});

void t.test('ending the streams while their list is read ends each once', (t) => {
  const streams = new OpenStreams();
  const entries = [1, 2, 3].map((n) => streams.add(relay(n), 'k'));
  const ended: number[] = [];
  for (const r of streams.relays('k')) {
    const n = (r as unknown as { n: number }).n;
    ended.push(n);
    streams.remove(entries[n - 1]!);
  }
  t.strictSame(ended.sort(), [1, 2, 3]);
  t.equal(streams.size, 0);
  t.strictSame(streams.keys(), []);
  t.end();
});

void t.test('any order of opening and ending keeps the same streams as a set would', (t) => {
  const op = fc.oneof(
    fc.record({ add: fc.constantFrom('k1', 'k2', undefined) }),
    fc.record({ remove: fc.nat() }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
      const streams = new OpenStreams();
      const model = new Map<number, { entry: OpenStream; keyId: string | undefined }>();
      let next = 0;
      for (const o of ops) {
        if ('add' in o) {
          const n = next++;
          model.set(n, { entry: streams.add(relay(n), o.add), keyId: o.add });
        } else if (model.size > 0) {
          const n = [...model.keys()][o.remove % model.size]!;
          streams.remove(model.get(n)!.entry);
          model.delete(n);
        }
        const of = (k?: string) => [...model].filter(([, v]) => k === undefined || v.keyId === k);
        if (
          sorted(streams.relays()).join() !==
          of()
            .map(([n]) => n)
            .join()
        )
          return false;
        for (const k of ['k1', 'k2']) {
          if (
            sorted(streams.relays(k)).join() !==
            of(k)
              .map(([n]) => n)
              .join()
          )
            return false;
          if (streams.hasKey(k) !== of(k).length > 0) return false;
        }
      }
      return streams.size === model.size;
    }),
  );
  t.end();
});
