/**
 * Batches the gateway runs itself (modelc has no batch API), through the `openai` SDK: upload, create,
 * poll to the end, download the output; one usage record per line, with its batch and custom id, metered
 * like the same call alone; another key sees none of it.
 */
import t from 'tap';
import OpenAI from 'openai';
import { startTestGateway } from '../../../helpers/gateway';
import {
  batchRecords,
  chatLines,
  createBatch,
  endedBatch,
  failedStatus,
  requestLines,
  resultLines,
  uploadBatchFile,
} from '../../../helpers/batches';

const MODEL = 'modelc-3.6-plus';

t.test('a batch run by the gateway, through the openai SDK', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.batches = { lines_per_second: 50 };
    doc.prices = { ...(doc.prices as object), [MODEL]: { input_per_mtok: 0.8, output_per_mtok: 4.8 } };
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const lines = [
    { custom_id: 'row-1', model: MODEL, content: 'one #sim tokens=3' },
    { custom_id: 'row-2', model: MODEL, content: 'two #sim tokens=4' },
    { custom_id: 'row-3', model: MODEL, content: 'three #sim tokens=5' },
  ];
  const file = await uploadBatchFile(client, chatLines(lines));
  t.match(file, { object: 'file', purpose: 'batch', filename: 'input.jsonl', status: 'processed' });
  t.match(file.id, /^file-/);

  const created = await client.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
    metadata: { job: 'nightly' },
  });
  t.match(created, { object: 'batch', status: 'validating', request_counts: { total: 3 } });
  t.same(created.metadata, { job: 'nightly' });

  const batch = await endedBatch(client, created.id);
  t.equal(batch.status, 'completed');
  t.same(batch.request_counts, { total: 3, completed: 3, failed: 0 });
  t.equal(batch.error_file_id, null, 'no line failed');
  t.ok(batch.in_progress_at && batch.completed_at && batch.finalizing_at, 'its times are set');

  const output = await resultLines(client, batch.output_file_id!);
  t.same(output.map((l) => l.custom_id).sort(), ['row-1', 'row-2', 'row-3'], 'one answer per custom_id');
  for (const line of output) {
    const response = line.response as { status_code: number; body: OpenAI.ChatCompletion };
    t.equal(response.status_code, 200);
    t.equal(response.body.object, 'chat.completion');
  }
  const byId = new Map(output.map((l) => [l.custom_id, l]));
  const row2 = (byId.get('row-2')!.response as { body: OpenAI.ChatCompletion }).body;
  t.equal(row2.usage?.completion_tokens, 4, "the line's own answer");

  t.test('one usage record per line, with its batch and custom id, as the same call alone', async (t) => {
    const records = await batchRecords(gw.gateway.usage, batch.id);
    t.equal(records.length, 3);
    t.same(records.map((r) => r.custom_id).sort(), ['row-1', 'row-2', 'row-3']);
    const alone = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'two #sim tokens=4' }],
      max_tokens: 50,
    });
    const [single] = await gw.gateway.usage.list({ id: alone._request_id ?? '', limit: 1 });
    const line = records.find((r) => r.custom_id === 'row-2')!;
    t.match(line, {
      model: MODEL,
      endpoint: 'chat-completions',
      status: 200,
      prompt_tokens: single?.prompt_tokens,
      completion_tokens: single?.completion_tokens,
      cost_micros: single?.cost_micros,
    });
    t.ok((line.cost_micros ?? 0) > 0, 'priced at the normal price');
  });

  t.test('another key sees neither the batch nor its files', async (t) => {
    const other = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: await gw.createKey(), maxRetries: 0 });
    t.equal(await failedStatus(other.batches.retrieve(batch.id)), 404);
    t.equal(await failedStatus(other.files.retrieve(file.id)), 404);
    t.equal(await failedStatus(other.files.content(batch.output_file_id!)), 404);
    t.equal(await failedStatus(other.batches.cancel(batch.id)), 404);
    const listed = await other.batches.list();
    t.same(listed.data, [], 'its list is empty');
  });

  t.test("the video tasks' counts leave batches out", async (t) => {
    const counts = await gw.gateway.tasks.countByStatus();
    t.equal(counts.succeeded, 0, 'the completed batch is no video task');
  });

  t.test('the owner lists its batch and files', async (t) => {
    const batches = await client.batches.list();
    t.ok(batches.data.some((b) => b.id === batch.id));
    const files = await client.files.list();
    t.ok(files.data.some((f) => f.id === file.id));
    t.ok(files.data.some((f) => f.id === batch.output_file_id && f.purpose === 'batch_output'));
  });

  t.test('a finished batch cannot be cancelled; unknown ids are 404', async (t) => {
    t.equal(await failedStatus(client.batches.cancel(batch.id)), 409);
    t.equal(await failedStatus(client.batches.retrieve('batch_nope')), 404);
    t.equal(await failedStatus(client.files.retrieve('file-nope')), 404);
  });

  t.test('a deleted file is gone', async (t) => {
    const extra = await uploadBatchFile(client, chatLines(lines.slice(0, 1)));
    const deleted = await client.files.delete(extra.id);
    t.same(deleted, { id: extra.id, object: 'file', deleted: true });
    t.equal(await failedStatus(client.files.retrieve(extra.id)), 404);
  });
});

t.test('a Responses batch the gateway runs is metered and priced like the calls alone', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.batches = { lines_per_second: 50 };
    doc.prices = { ...(doc.prices as object), [MODEL]: { input_per_mtok: 0.8, output_per_mtok: 4.8 } };
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const jsonl = requestLines(
    '/v1/responses',
    ['one', 'two'].map((word, i) => ({
      custom_id: `r${i}`,
      body: { model: MODEL, input: `${word} #sim tokens=${i + 2}` },
    })),
  );
  const file = await uploadBatchFile(client, jsonl);
  const created = await createBatch(client, file.id, '/v1/responses');
  const batch = await endedBatch(client, created.id);
  t.equal(batch.status, 'completed');
  const output = await resultLines(client, batch.output_file_id!);
  const body = (output.find((l) => l.custom_id === 'r1')!.response as { body: { object: string } }).body;
  t.equal(body.object, 'response', "each line answered in the Responses API's shape");
  const records = await batchRecords(gw.gateway.usage, batch.id);
  t.equal(records.length, 2);
  t.ok(
    records.every((r) => r.endpoint === 'responses' && r.completion_tokens > 0 && (r.cost_micros ?? 0) > 0),
    'each line priced, never $0',
  );
});
