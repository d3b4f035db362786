/**
 * The simulator's embeddings endpoints, one per vendor: each answers in its vendor's body (key order,
 * `usage` or none, DashScope's `id`), with deterministic float32 vectors of the asked size, base64 where
 * the vendor sends it, and the vendor's refusals (input forms, sizes, encodings, inputs a call).
 */
import t from 'tap';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { errorShape, type FamilyName } from './helpers';

interface Vendor {
  readonly family: FamilyName;
  readonly path: string;
  readonly key: string;
  readonly model: string;
  readonly size: number;
  /** The answer's top-level keys, in order. */
  readonly keys: readonly string[];
  readonly entryKeys: readonly string[];
  readonly tokens: boolean;
  readonly base64: boolean;
  readonly maxInputs: number;
  readonly badSize: number;
}

const VENDORS: readonly Vendor[] = [
  {
    family: 'modela',
    path: '/modela/v1/embeddings',
    key: 'sim-modela-key',
    model: 'modela-embedding-3-small',
    size: 1536,
    keys: ['object', 'data', 'model', 'usage'],
    entryKeys: ['object', 'index', 'embedding'],
    tokens: true,
    base64: true,
    maxInputs: 2048,
    badSize: 1537,
  },
  {
    family: 'modelb',
    path: '/modelb/v1beta/openai/embeddings',
    key: 'sim-modelb-key',
    model: 'modelb-embedding-001',
    size: 3072,
    keys: ['data', 'model', 'object'],
    entryKeys: ['embedding', 'index', 'object'],
    tokens: false,
    base64: false,
    maxInputs: 100,
    badSize: 64,
  },
  {
    family: 'modelc',
    path: '/modelc/compatible-mode/v1/embeddings',
    key: 'sim-modelc-key',
    model: 'modelc-embedding-v4',
    size: 1024,
    keys: ['data', 'model', 'object', 'usage', 'id'],
    entryKeys: ['embedding', 'index', 'object'],
    tokens: false,
    base64: false,
    maxInputs: 10,
    badSize: 1000,
  },
];

interface Answer {
  data: { embedding: number[] | string; index: number }[];
  usage?: { prompt_tokens: number; total_tokens: number };
}

let sim: RunningSimulator;
t.before(async () => {
  sim = await startSimulator();
});
t.teardown(() => sim.close());

async function embed(v: Vendor, body: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(sim.url + v.path, {
    method: 'POST',
    headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: v.model, ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

for (const v of VENDORS) {
  t.test(`${v.family}: the vendor's body, deterministic vectors`, async (t) => {
    const first = await embed(v, { input: ['hello there', 'a second text'] });
    t.equal(first.status, 200);
    t.strictSame(Object.keys(first.body), v.keys, 'the vendor key order');
    const answer = first.body as unknown as Answer;
    t.strictSame(Object.keys(answer.data[0]!), v.entryKeys);
    t.same(
      answer.data.map((d) => d.index),
      [0, 1],
    );
    const vector = answer.data[0]!.embedding as number[];
    t.equal(vector.length, v.size, 'the default size');
    t.ok(
      vector.every((x) => Math.fround(x) === x),
      'float32 values',
    );
    t.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-3, 'unit length');
    const again = (await embed(v, { input: 'hello there' })).body as unknown as Answer;
    t.same(again.data[0]!.embedding, vector, 'the same input, the same vector');
    if (v.keys.includes('usage')) t.match(answer.usage, { prompt_tokens: 7, total_tokens: 7 });
    else t.notOk('usage' in first.body, 'no usage');
  });

  t.test(`${v.family}: what the vendor refuses`, async (t) => {
    const tooMany = await embed(v, { input: Array.from({ length: v.maxInputs + 1 }, () => 'x') });
    t.equal(tooMany.status, 400, 'one input over its count');
    t.match(tooMany.body, errorShape(v.family, 400));
    t.equal((await embed(v, { input: 'x', dimensions: v.badSize })).status, 400, 'a size it has not');
    t.equal((await embed(v, { input: '' })).status, 400, 'an empty input');
    t.equal((await embed(v, { model: 'other', input: 'x' })).status, 404, 'a model it has not');
    const tokens = await embed(v, { input: [[1, 2, 3]] });
    t.equal(tokens.status, v.tokens ? 200 : 400, v.tokens ? 'token arrays taken' : 'token arrays refused');
    const base64 = await embed(v, { input: 'x', encoding_format: 'base64' });
    t.equal(base64.status, v.base64 ? 200 : 400, v.base64 ? 'base64 answered' : 'base64 refused');
  });
}

t.test('modela: base64 is the float vector in float32 little-endian', async (t) => {
  const v = VENDORS[0]!;
  const floats = (await embed(v, { input: 'abc', dimensions: 8 })).body as unknown as Answer;
  const encoded = (await embed(v, { input: 'abc', dimensions: 8, encoding_format: 'base64' }))
    .body as unknown as Answer;
  const bytes = Buffer.from(encoded.data[0]!.embedding as string, 'base64');
  const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
  t.same(decoded, floats.data[0]!.embedding);
});
