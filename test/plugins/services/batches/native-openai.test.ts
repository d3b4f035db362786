/**
 * A batch on a model whose vendor has OpenAI's Batch API (modela): the gateway hands it to the vendor,
 * follows it to its end, and bills each line from the vendor's answer as the same call alone, at the
 * model's batch price, which is below the call's.
 */
import t from 'tap';
import OpenAI from 'openai';
import { startTestGateway } from '../../../helpers/gateway';
import {
  batchRecords,
  chatLines,
  createBatch,
  endedBatch,
  failedMessage,
  failedStatus,
  requestLines,
  resultLines,
  uploadBatchFile,
} from '../../../helpers/batches';

const MODEL = 'modela-5.5';

t.test('a native batch through the openai SDK', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.batches = { native_poll_every: '100ms' };
    doc.prices = {
      ...(doc.prices as object),
      [MODEL]: { input_per_mtok: 1.25, output_per_mtok: 10, batch: { discount: 0.5 } },
      'modela-embedding-3-small': { input_per_mtok: 20, batch: { discount: 0.5 } },
    };
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const rows = ['one', 'two', 'three'].map((word, i) => ({
    custom_id: `row-${i}`,
    model: MODEL,
    content: `${word} #sim tokens=${i + 3}`,
  }));
  const file = await uploadBatchFile(client, chatLines(rows));
  const created = await createBatch(client, file.id);
  const batch = await endedBatch(client, created.id);
  t.equal(batch.status, 'completed');
  t.same(batch.request_counts, { total: 3, completed: 3, failed: 0 });

  const vendorBatches = gw.sim.batches.view('modela').batches;
  t.equal(vendorBatches.length, 1, 'one batch at the vendor');
  const sentAlone = gw.sim.log.list().filter((r) => r.path.endsWith('/chat/completions')).length;
  t.equal(sentAlone, 0, 'no line was sent as a call of its own');

  const output = await resultLines(client, batch.output_file_id!);
  t.same(output.map((l) => l.custom_id).sort(), ['row-0', 'row-1', 'row-2']);
  const row2 = output.find((l) => l.custom_id === 'row-2')!.response as { body: OpenAI.ChatCompletion };
  t.equal(row2.body.model, MODEL);
  t.equal(row2.body.usage?.completion_tokens, 5, "the vendor's answer to the line");

  const records = await batchRecords(gw.gateway.usage, batch.id);
  t.equal(records.length, 3, 'one usage record per line');
  const alone = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'three #sim tokens=5' }],
    max_tokens: 50,
  });
  const [single] = await gw.gateway.usage.list({ id: alone._request_id ?? '', limit: 1 });
  const line = records.find((r) => r.custom_id === 'row-2')!;
  t.equal(line.prompt_tokens, single?.prompt_tokens, 'metered as the same call alone');
  t.equal(line.completion_tokens, single?.completion_tokens);
  t.ok(line.cost_micros! > 0 && line.cost_micros! < single!.cost_micros!, 'priced below the call alone');
  t.equal(line.cost_micros, Math.round(single!.cost_micros! / 2), 'at half its price');

  t.test('an embeddings batch runs at the vendor too, each line priced at the batch price', async (t) => {
    const embedding = 'modela-embedding-3-small';
    const jsonl = requestLines(
      '/v1/embeddings',
      ['alpha', 'beta'].map((input, i) => ({ custom_id: `e${i}`, body: { model: embedding, input } })),
    );
    const upload = await uploadBatchFile(client, jsonl);
    const created = await createBatch(client, upload.id, '/v1/embeddings');
    const ended = await endedBatch(client, created.id);
    t.equal(ended.status, 'completed');
    const records = await batchRecords(gw.gateway.usage, ended.id);
    t.equal(records.length, 2);
    t.ok(
      records.every((r) => r.endpoint === 'embeddings' && r.prompt_tokens > 0 && (r.cost_micros ?? 0) > 0),
      'each line metered and priced',
    );
  });

  t.test('another key gets 404 for the batch and its output', async (t) => {
    const other = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: await gw.createKey(), maxRetries: 0 });
    t.equal(await failedStatus(other.batches.retrieve(batch.id)), 404);
    t.equal(await failedStatus(other.files.content(batch.output_file_id!)), 404);
  });

  t.test('a file of two models, which the vendor cannot run in one batch, names the line', async (t) => {
    const mixed = await uploadBatchFile(
      client,
      chatLines([
        { custom_id: 'a', model: MODEL, content: 'hi' },
        { custom_id: 'b', model: 'modela-5.6-luna', content: 'hi' },
      ]),
    );
    t.match(await failedMessage(createBatch(client, mixed.id)), /^400 .*line 2.*one model per batch/);
  });
});
