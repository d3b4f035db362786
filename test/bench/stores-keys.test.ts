/**
 * Making the store bench's keys against a stand-in admin API that drops two POSTs' connections: one
 * before making its key (sent again), one after (found by its description, its secret lost). Every key
 * is made once, and the middle key handed on is one whose secret the bench holds.
 */
import t from 'tap';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeKeys, middleKey } from '../../bench/stores-keys';

interface Body {
  readonly description?: string;
  readonly team_id?: string;
  readonly name?: string;
}

async function bodyOf(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
}

/** The admin API's key and team routes, as far as makeKeys uses them, in memory. */
function standIn(dropBefore: string, dropAfter: string) {
  const keys = new Map<string, { id: string; description: string }>();
  const posts: string[] = [];
  const dropped = new Set<string>();
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST' && url.pathname === '/admin/teams') {
        const { name = '' } = await bodyOf(req);
        res.end(JSON.stringify({ id: `team-${name.slice(-1)}` }));
        return;
      }
      if (req.method === 'GET') {
        const q = url.searchParams.get('q') ?? '';
        res.end(JSON.stringify({ data: [...keys.values()].filter((k) => k.description.includes(q)) }));
        return;
      }
      const { description = '' } = await bodyOf(req);
      posts.push(description);
      const drop = !dropped.has(description) && (description === dropBefore || description === dropAfter);
      if (drop) dropped.add(description);
      if (drop && description === dropBefore) return void req.socket.destroy();
      const id = `k${keys.size}`;
      keys.set(id, { id, description });
      if (drop) return void req.socket.destroy();
      res.statusCode = 201;
      res.end(JSON.stringify({ key: `sk-${id}`, record: { id } }));
    })();
  });
  return { server, keys, posts };
}

t.test('a dropped POST is sent again only when its key was not made', async (t) => {
  const api = standIn('bench key 03', 'bench key 10');
  await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => void api.server.close());
  const { port } = api.server.address() as AddressInfo;
  const blocks: number[] = [];
  const made = await makeKeys({ url: `http://127.0.0.1:${port}`, token: 't' }, 20, (n) => blocks.push(n));

  t.equal(made.dropped, 2);
  t.equal(api.keys.size, 20, 'every key made once');
  t.equal(
    api.posts.filter((d) => d === 'bench key 03').length,
    2,
    'the one dropped before it was made: sent again',
  );
  t.equal(
    api.posts.filter((d) => d === 'bench key 10').length,
    1,
    'the one made before the drop: not sent again',
  );
  t.same(
    made.keys.map((k) => k.description),
    Array.from({ length: 20 }, (_, i) => `bench key ${String(i).padStart(2, '0')}`),
  );
  t.equal(made.keys[10]?.key, undefined, 'its secret is lost');
  t.ok(made.keys[10]?.id, 'its id was found');
  t.same(blocks, [2, 4, 6, 8, 10, 12, 14, 16, 18, 20], 'a block of 2 keys (a tenth) reported at a time');
  t.equal(made.blocks.length, 10);
  const middle = middleKey(made);
  t.not(middle.description, 'bench key 10', 'the middle key handed on has its secret');
  t.match(middle.key, /^sk-k\d+$/);
});
