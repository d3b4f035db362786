/**
 * `POST /v1/embeddings` through the official `openai` npm package, against every embedding model of the
 * three families: the SDK's default (it asks for base64 and decodes it) equals floats asked for
 * explicitly, an explicit base64 decodes to the same floats, every input form a family takes (and a 400
 * for those it does not), `dimensions`, the ledger holding the vendor's usage (or the gateway's marked
 * estimate where the vendor sends none), the contract's error body for bad requests, and the usage
 * summary counting the calls.
 */
import t from 'tap';
import OpenAI from 'openai';
import type { UsageRecord, UsageSummaryRow } from '../../core/stores/usage-store';
import { isError } from '../helpers/errors';
import { startTestGateway, type TestGateway } from '../helpers/gateway';
import { getJson, postJson } from '../helpers/http';
import { eventually } from '../helpers/wait';

/** Each embedding model: its default size, a size it takes, its price, and whether its vendor reports usage. */
const MODELS = [
  { id: 'modela-embedding-3-small', size: 1536, other: 256, price: 0.02, reports: true, tokens: true },
  { id: 'modela-embedding-3-large', size: 3072, other: 1024, price: 0.13, reports: true, tokens: true },
  { id: 'modelb-embedding-001', size: 3072, other: 768, price: 0.15, reports: false, tokens: false },
  { id: 'modelc-embedding-v4', size: 1024, other: 512, price: 0.07, reports: true, tokens: false },
] as const;

const PRICES = Object.fromEntries(MODELS.map((m) => [m.id, { input_per_mtok: m.price }]));

/** OpenAI's base64: float32 little-endian. */
function decode(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

let ids = 0;
const withId = (label: string) => {
  const id = `embed-${process.pid}-${label}-${++ids}`;
  return { id, options: { headers: { 'x-request-id': id } } };
};

async function recordOf(gw: TestGateway, id: string): Promise<UsageRecord | undefined> {
  await eventually(async () => (await gw.gateway.usage.list({ id })).length === 1);
  return (await gw.gateway.usage.list({ id }))[0];
}

t.test('openai SDK embeddings against the gateway', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    Object.assign(doc.prices as Record<string, unknown>, PRICES);
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const text = 'The food was delicious and the waiter was kind.';

  for (const m of MODELS) {
    t.test(`${m.id}: the SDK's default (base64) decodes to the floats asked for`, async (t) => {
      const byDefault = await client.embeddings.create({ model: m.id, input: text });
      const floats = await client.embeddings.create({ model: m.id, input: text, encoding_format: 'float' });
      const asked = withId('b64');
      const base64 = await client.embeddings.create(
        { model: m.id, input: text, encoding_format: 'base64' },
        asked.options,
      );
      const vector = floats.data[0]!.embedding;
      t.equal(vector.length, m.size, "the model's default size");
      t.same(byDefault.data[0]!.embedding, vector, 'the default equals the floats');
      const encoded = base64.data[0]!.embedding as unknown;
      t.type(encoded, 'string', 'base64 asked: a string');
      t.same(decode(encoded as string), vector, 'and it decodes to the floats');
      t.match(floats, { object: 'list', model: m.id, data: [{ object: 'embedding', index: 0 }] });
      t.ok(floats.usage.prompt_tokens > 0, 'usage in every answer');

      const record = await recordOf(gw, asked.id);
      t.match(record, { model: m.id, endpoint: 'embeddings', status: 200, completion_tokens: 0 });
      t.equal(record?.prompt_tokens, base64.usage.prompt_tokens, 'the ledger holds the usage answered');
      t.equal(record?.estimated, !m.reports, m.reports ? "the vendor's own count" : 'an estimate, marked');
      if (!m.reports) t.equal(record?.prompt_tokens, Math.ceil(text.length / 4), 'about four chars a token');
      t.equal(record?.cost_micros, Math.round((record?.prompt_tokens ?? 0) * m.price), 'input-only price');
    });

    t.test(`${m.id}: several texts, in order, and dimensions`, async (t) => {
      const texts = ['one', 'two words', 'three small words'];
      const many = await client.embeddings.create({ model: m.id, input: texts, dimensions: m.other });
      t.same(
        many.data.map((d) => d.index),
        [0, 1, 2],
      );
      t.ok(
        many.data.every((d) => d.embedding.length === m.other),
        `each of ${m.other} dimensions`,
      );
      const alone = await client.embeddings.create({ model: m.id, input: 'two words', dimensions: m.other });
      t.same(many.data[1]!.embedding, alone.data[0]!.embedding, 'each input embedded on its own');
      const refused = await postJson(
        `${gw.url}/v1/embeddings`,
        { model: m.id, input: 'x', dimensions: 5000 },
        gw.key,
      );
      isError(t, refused, 400, 'invalid_request', 'dimensions', m.id);
    });

    t.test(`${m.id}: token ids ${m.tokens ? 'embedded' : 'refused by name'}`, async (t) => {
      const single = await postJson(`${gw.url}/v1/embeddings`, { model: m.id, input: [1, 2, 3] }, gw.key);
      const arrays = await postJson(`${gw.url}/v1/embeddings`, { model: m.id, input: [[1, 2], [3]] }, gw.key);
      if (!m.tokens) {
        isError(t, single, 400, 'unsupported_field', "'input' as an array of tokens", m.id);
        isError(t, arrays, 400, 'unsupported_field', "'input' as an array of token arrays", m.id);
        return;
      }
      t.equal(single.status, 200);
      t.match(single.body, { data: [{ index: 0 }], usage: { prompt_tokens: 3 } }, 'three tokens counted');
      t.equal(arrays.status, 200);
      t.match(arrays.body, { data: [{ index: 0 }, { index: 1 }], usage: { prompt_tokens: 3 } });
    });
  }

  t.test('bad requests get the contract error body', async (t) => {
    const post = (body: unknown) => postJson(`${gw.url}/v1/embeddings`, body, gw.key);
    isError(t, await post({ model: 'modela-embedding-3-small' }), 400, 'invalid_request', 'input');
    isError(t, await post({ model: 'modela-embedding-3-small', input: '' }), 400, 'invalid_request', 'input');
    isError(t, await post({ model: 'modela-embedding-3-small', input: [] }), 400, 'invalid_request');
    const wrongFormat = await post({ model: 'modela-embedding-3-small', input: 'x', encoding_format: 'hex' });
    isError(t, wrongFormat, 400, 'invalid_request', 'encoding_format');
    const eleven = Array.from({ length: 11 }, (_, i) => `text ${i}`);
    const tooMany = await post({ model: 'modelc-embedding-v4', input: eleven });
    isError(t, tooMany, 400, 'invalid_request', '11 inputs', 'at most 10');
    const user = await post({ model: 'modelc-embedding-v4', input: 'x', user: 'u-1' });
    isError(t, user, 400, 'unsupported_field', 'user');
    const tooLong = await post({ model: 'modela-embedding-3-small', input: [Array(8193).fill(1)] });
    isError(t, tooLong, 400, 'invalid_request', '8193 tokens', 'at most 8192');
    const chatModel = await post({ model: 'modela-5.5', input: 'x' });
    isError(t, chatModel, 404, 'model_not_found', 'POST /v1/chat/completions');
    const onChat = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modelb-embedding-001', messages: [{ role: 'user', content: 'hi' }] },
      gw.key,
    );
    isError(t, onChat, 404, 'model_not_found', 'POST /v1/embeddings');
    const sdk = await client.embeddings
      .create({ model: 'modelb-embedding-001', input: '' })
      .catch((e: unknown) => e);
    t.ok(sdk instanceof OpenAI.BadRequestError, 'the SDK raises its BadRequestError');
  });

  t.test('an upstream error keeps its status and reaches the SDK', async (t) => {
    const failed = await client.embeddings
      .create({ model: 'modelc-embedding-v4', input: 'x' }, { headers: { 'x-sim-status': '429' } })
      .catch((e: unknown) => e);
    t.ok(failed instanceof OpenAI.RateLimitError);
  });

  t.test('the model list and the usage summary count the endpoint', async (t) => {
    const listed = await getJson<{ data: { id: string; owned_by: string }[] }>(`${gw.url}/v1/models`, gw.key);
    for (const m of MODELS)
      t.ok(
        listed.body.data.some((d) => d.id === m.id),
        `${m.id} listed`,
      );
    const res = await fetch(`${gw.gateway.adminUrl}/admin/usage/summary?group_by=model`, {
      headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
    });
    const rows = ((await res.json()) as { data: UsageSummaryRow[] }).data;
    const records = (await gw.gateway.usage.list({ key_id: gw.key.slice(0, 11) })).filter(
      (r) => r.endpoint === 'embeddings',
    );
    for (const m of MODELS) {
      const mine = records.filter((r) => r.model === m.id);
      const row = rows.find((r) => r.model === m.id);
      t.ok(mine.length > 0, `${m.id} has records`);
      t.match(
        row,
        {
          requests: mine.length,
          input_tokens: mine.reduce((n, r) => n + r.prompt_tokens, 0),
          output_tokens: 0,
          cost_unknown_requests: 0,
        },
        `${m.id}: the summary counts its calls`,
      );
    }
  });
});
