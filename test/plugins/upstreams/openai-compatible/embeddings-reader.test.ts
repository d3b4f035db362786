/**
 * The embeddings reader: the vendor's usage read from its `usage` member alone where the body can pass
 * as it is, the whole body read where the gateway must encode base64 or add an estimated usage, and the
 * encoding itself (float32 little-endian, as OpenAI's).
 */
import t from 'tap';
import { EmbeddingsResponseReader } from '../../../../plugins/upstreams/openai-compatible/embeddings-reader';
import { float32Base64 } from '../../../../plugins/upstreams/openai-compatible/float32-base64';

const body = () => ({
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25, 0.1] }],
  model: 'm',
  usage: { prompt_tokens: 7, total_tokens: 7 },
});

t.test('floats asked: the usage member decides, the body passes as it is', (t) => {
  const reader = new EmbeddingsResponseReader(false, () => 99);
  t.same(reader.usageMember({ prompt_tokens: 7, total_tokens: 7 }), {
    promptTokens: 7,
    completionTokens: 0,
    totalTokens: 7,
    estimated: false,
  });
  t.same(reader.json(body()), {
    usage: { promptTokens: 7, completionTokens: 0, totalTokens: 7, estimated: false },
  });
  t.end();
});

t.test('base64 encoded here: the whole body is read and its vectors encoded', (t) => {
  const reader = new EmbeddingsResponseReader(true, () => 99);
  t.equal(reader.usageMember({ prompt_tokens: 7 }), undefined, 'no shortcut');
  const read = reader.json(body());
  t.equal(read.usage.promptTokens, 7);
  const data = read.replace?.data as { embedding: string }[];
  const bytes = Buffer.from(data[0]!.embedding, 'base64');
  const decoded = [0, 1, 2].map((i) => bytes.readFloatLE(i * 4));
  t.same(decoded, [0.5, -0.25, Math.fround(0.1)], 'float32 little-endian');
  t.same(read.replace?.usage, body().usage, "the vendor's usage kept");
  t.end();
});

t.test('no usage from the vendor: estimated, marked, and given to the client', (t) => {
  const reader = new EmbeddingsResponseReader(false, () => 12);
  const withoutUsage: Record<string, unknown> = body();
  delete withoutUsage.usage;
  const read = reader.json(withoutUsage);
  t.same(read.usage, { promptTokens: 12, completionTokens: 0, estimated: true });
  t.same(read.replace?.usage, { prompt_tokens: 12, total_tokens: 12 });
  t.same(reader.usage(), read.usage);
  t.end();
});

t.test('float32Base64 matches the bytes OpenAI sends', (t) => {
  t.equal(float32Base64([1, -2]), Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]).toString('base64'));
  t.equal(float32Base64([]), '');
  t.end();
});
