/**
 * A batch the gateway runs, stopped before its end: cancelled by its owner, or past its completion
 * window. The lines answered stay in the output file and are billed; the rest go to the error file with
 * why they did not run, are billed nothing, and their hold on the key's budget is released.
 */
import t from 'tap';
import OpenAI from 'openai';
import { startTestGateway, type Teardown, type TestGateway } from '../../../helpers/gateway';
import {
  batchRecords,
  chatLines,
  createBatch,
  endedBatch,
  resultLines,
  uploadBatchFile,
} from '../../../helpers/batches';
import { until } from '../../../helpers/wait';

const MODEL = 'modelc-3.6-plus';
const LINES = 6;

const input = chatLines(
  Array.from({ length: LINES }, (_, i) => ({
    custom_id: `row-${i}`,
    model: MODEL,
    content: `n${i} #sim tokens=2`,
  })),
);

/** A gateway that sends two lines a second: slow enough to stop a batch part-way. */
async function slowGateway(t: Teardown, batches: Record<string, unknown> = {}): Promise<TestGateway> {
  return startTestGateway(t, (doc) => {
    doc.batches = { lines_per_second: 2, line_concurrency: 1, ...batches };
  });
}

t.test('a cancelled batch keeps what ran, and says why the rest did not', async (t) => {
  const gw = await slowGateway(t);
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const file = await uploadBatchFile(client, input);
  const created = await createBatch(client, file.id);
  await until(
    () => client.batches.retrieve(created.id),
    (b) => (b.request_counts?.completed ?? 0) >= 1,
    { what: 'a first line answered' },
  );
  const cancelling = await client.batches.cancel(created.id);
  t.ok(['cancelling', 'cancelled'].includes(cancelling.status), `cancel answers ${cancelling.status}`);
  t.ok(cancelling.cancelling_at, 'with the time it was asked');

  const batch = await endedBatch(client, created.id);
  t.equal(batch.status, 'cancelled');
  t.ok(batch.cancelled_at);
  const { completed = 0, failed = 0, total } = batch.request_counts!;
  t.equal(total, LINES);
  t.ok(completed >= 1 && completed < LINES, `some lines ran (${completed}), not all`);
  t.equal(completed + failed, LINES, 'every line counted once');

  const output = await resultLines(client, batch.output_file_id!);
  const errors = await resultLines(client, batch.error_file_id!);
  t.equal(output.length, completed);
  t.equal(errors.length, failed);
  t.ok(
    errors.every((l) => (l.error as { code: string }).code === 'batch_cancelled' && l.response === null),
    'the lines not run say the batch was cancelled',
  );
  const ids = [...output, ...errors].map((l) => l.custom_id).sort();
  t.same(ids, Array.from({ length: LINES }, (_, i) => `row-${i}`).sort(), 'each custom_id once');

  const records = await batchRecords(gw.gateway.usage, batch.id);
  t.same(
    records.map((r) => r.custom_id).sort(),
    output.map((l) => l.custom_id).sort(),
    'a usage record for each line that ran, none for the rest',
  );
  const sent = gw.sim.log.list().filter((r) => r.path.endsWith('/chat/completions')).length;
  t.equal(sent, completed, 'the upstream heard only the lines that ran');
});

t.test('a batch past its completion window expires with what it finished', async (t) => {
  const gw = await slowGateway(t, { completion_window: '1500ms', lines_per_second: 1 });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const file = await uploadBatchFile(client, input);
  const created = await createBatch(client, file.id);
  const batch = await endedBatch(client, created.id);
  t.equal(batch.status, 'expired');
  t.ok(batch.expired_at);
  const { completed = 0, failed = 0 } = batch.request_counts!;
  t.ok(completed < LINES, `it ran out of time (${completed} of ${LINES} ran)`);
  t.equal(completed + failed, LINES);
  const errors = await resultLines(client, batch.error_file_id!);
  t.ok(errors.length > 0 && errors.every((l) => (l.error as { code: string }).code === 'batch_expired'));
  t.equal((await batchRecords(gw.gateway.usage, batch.id)).length, completed, 'only what ran is billed');
});
