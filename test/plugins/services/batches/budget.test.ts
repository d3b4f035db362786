/**
 * A batch and its key's budget: the whole estimate must fit before anything is stored, the hold stays
 * while the batch runs (a second batch that would overrun is refused), a cancelled batch lets go of what
 * it did not run, and a gateway restarted mid-batch holds what the batch still may cost again.
 */
import t from 'tap';
import OpenAI from 'openai';
import { buildConfig } from '../../../../config/load';
import { startGateway, type RunningGateway } from '../../../../core/boot/gateway';
import { startSimulator } from '../../../../simulator/server';
import { closedAtEnd, tempDir, testConfig } from '../../../helpers/gateway';
import { chatLines, createBatch, endedBatch, failedStatus, uploadBatchFile } from '../../../helpers/batches';

const MODEL = 'modelc-3.6-plus';
const LINES = 12;
const input = chatLines(
  Array.from({ length: LINES }, (_, i) => ({
    custom_id: `row-${i}`,
    model: MODEL,
    content: `n${i} #sim tokens=2`,
  })),
);

t.test("a batch holds its estimate against its key's budget until it ends, across a restart", async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dataDir = await tempDir(t);
  const doc = testConfig(sim.url, dataDir);
  doc.batches = { lines_per_second: 1, line_concurrency: 1 };
  doc.prices = { ...(doc.prices as object), [MODEL]: { input_per_mtok: 0.8, output_per_mtok: 4.8 } };
  const start = () => startGateway(buildConfig(doc));

  let gw: RunningGateway = await start();
  const created = await gw.keys.create({ budget: { amount_micros: 1e12, period: 'total' } });
  const clientOf = (g: RunningGateway) =>
    new OpenAI({ baseURL: `${g.url}/v1`, apiKey: created.key, maxRetries: 0 });
  let client = clientOf(gw);
  const file = await uploadBatchFile(client, input);
  const batchOf = () => createBatch(client, file.id);

  const first = await batchOf();
  const estimate = (await gw.tasks.get(first.id))?.held_micros ?? 0;
  t.ok(estimate > 0, `the batch holds its estimate (${estimate} micro-units)`);
  await gw.keys.update(created.record.id, {
    budget: { amount_micros: Math.floor(1.5 * estimate), period: 'total' },
  });

  t.equal(await failedStatus(batchOf()), 429, 'a second batch that would overrun the budget is refused');

  await client.batches.cancel(first.id);
  const cancelled = await endedBatch(client, first.id);
  t.equal(cancelled.status, 'cancelled');
  const third = await batchOf();
  t.equal(third.status, 'validating', 'once the first is cancelled, what it did not run is free again');

  await gw.close(5_000);
  gw = await start();
  await closedAtEnd(t, gw);
  client = clientOf(gw);
  const held = (await gw.tasks.get(third.id))?.held_micros ?? 0;
  t.ok(held > estimate / 2, `the running batch still holds most of its estimate (${held})`);
  t.equal(await failedStatus(batchOf()), 429, 'after a restart its hold is held again: another is refused');
});
