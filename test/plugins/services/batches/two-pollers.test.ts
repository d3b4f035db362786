/**
 * Batches on a store several instances share: two pollers (as two instances run them, each with its own
 * owner name) over one store, and one of them lost mid-run without releasing anything. Every batch still
 * completes, each line is sent upstream at most once, and each answered line is billed once.
 */
import t from 'tap';
import OpenAI from 'openai';
import pino from 'pino';
import { Biller } from '../../../../core/tasks/billing';
import { Pricing } from '../../../../core/billing/pricing';
import { TaskPoller } from '../../../../core/tasks/poller';
import type { TaskStore } from '../../../../core/stores/task-store';
import { startTestGateway, type TestGateway } from '../../../helpers/gateway';
import { chatLines, createBatch, endedBatch, resultLines, uploadBatchFile } from '../../../helpers/batches';
import { until } from '../../../helpers/wait';

const MODEL = 'modelc-3.6-plus';
const BATCHES = 3;
const LINES = 6;

/** The gateway's store, counting the leases each owner was given. */
function countingLeases(store: TaskStore, given: Map<string, number>): TaskStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'acquire') return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<TaskStore['acquire']>) => {
        const task = await target.acquire(...args);
        if (task) given.set(args[1].owner, (given.get(args[1].owner) ?? 0) + 1);
        return task;
      };
    },
  });
}

/** A poller as another instance runs it, driving the gateway's task workers over the gateway's store. */
function instancePoller(gw: TestGateway, owner: string, store: TaskStore): TaskPoller {
  const poller = new TaskPoller(
    store,
    new Map(),
    new Biller(gw.gateway.usage, () => new Pricing({})),
    { owner, leaseMs: 1_000, sweepEveryMs: 200, takeoverMs: 100 },
    pino({ level: 'silent' }),
  );
  poller.useWorkers(gw.gateway.taskWorkers());
  return poller;
}

t.test('two instances share batches; one lost mid-run loses no line and sends none twice', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.video as Record<string, unknown>).poller = false; // the test's pollers are the only ones
    doc.batches = { lines_per_second: 4, line_concurrency: 2 };
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const ids: string[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const rows = Array.from({ length: LINES }, (_, i) => ({
      custom_id: `b${b}-row-${i}`,
      model: MODEL,
      content: `b${b}-row-${i} #sim tokens=2`,
    }));
    const file = await uploadBatchFile(client, chatLines(rows));
    const batch = await createBatch(client, file.id);
    ids.push(batch.id);
  }

  const given = new Map<string, number>();
  const store = countingLeases(gw.gateway.tasks, given);
  const lost = instancePoller(gw, 'instance-a/poller', store);
  const survivor = instancePoller(gw, 'instance-b/poller', store);
  t.teardown(() => survivor.stop());
  // Started together, either may lease every batch first: the one to be lost holds one before the other starts.
  lost.start();
  await until(
    () => given.get('instance-a/poller') ?? 0,
    (leases) => leases > 0,
    { what: 'a batch leased by the instance to be lost' },
  );
  survivor.start();
  await until(
    () => Promise.all(ids.map((id) => client.batches.retrieve(id))),
    (batches) => batches.reduce((n, b) => n + (b.request_counts?.completed ?? 0), 0) >= 4,
    { what: 'lines answered' },
  );
  lost.abandon(); // gone: its leases run out, nothing is handed back

  for (const id of ids) {
    const batch = await endedBatch(client, id, 30_000);
    t.equal(batch.status, 'completed', `${id} completed`);
    const output = await resultLines(client, batch.output_file_id!);
    const errors = batch.error_file_id ? await resultLines(client, batch.error_file_id) : [];
    t.equal(output.length + errors.length, LINES, `${id}: every line once`);
    t.equal(new Set([...output, ...errors].map((l) => l.custom_id)).size, LINES);
    t.ok(
      errors.every((l) => (l.error as { code: string } | null)?.code === 'batch_line_interrupted'),
      `${id}: a line without an answer was cut, not dropped`,
    );
  }
  const prompts = gw.sim.log
    .list()
    .map((entry) => /b\d-row-\d/.exec(JSON.stringify(entry.body))?.[0])
    .filter((p): p is string => p !== undefined);
  t.equal(new Set(prompts).size, prompts.length, 'no line sent upstream twice');
  const records = (await gw.gateway.usage.list({ limit: 1000 })).filter((r) => r.batch_id !== undefined);
  const billed = records.map((r) => `${r.batch_id}/${r.custom_id}`);
  t.equal(new Set(billed).size, billed.length, 'no line billed twice');
  t.equal(billed.length, prompts.length, 'every line sent is billed');
  t.ok((given.get('instance-b/poller') ?? 0) > 0, 'the survivor worked on batches');
});
