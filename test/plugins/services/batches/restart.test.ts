/**
 * A batch the gateway runs outlives its gateway: stopped (shutdown) or killed (SIGKILL: nothing flushed)
 * mid-batch, a gateway restarted on the same data directory finishes it. No line is lost and none is
 * sent twice: a line answered before the stop is kept, one the upstream may have run when the process
 * died ends as interrupted, and every other line runs once; each line run is billed once.
 */
import t from 'tap';
import OpenAI from 'openai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildConfig } from '../../../../config/load';
import { startGateway } from '../../../../core/boot/gateway';
import type { UsageRecord } from '../../../../core/stores/usage-store';
import { startSimulator, type RunningSimulator } from '../../../../simulator/server';
import { closedAtEnd, tempDir, testConfig, type ConfigDoc } from '../../../helpers/gateway';
import {
  batchRecords,
  chatLines,
  createBatch,
  endedBatch,
  resultLines,
  uploadBatchFile,
} from '../../../helpers/batches';
import { listeningOn, spawnGateway } from '../../../helpers/process';
import { until } from '../../../helpers/wait';

const MODEL = 'modelc-3.6-plus';
const LINES = 8;
const ROWS = Array.from({ length: LINES }, (_, i) => `row-${i}`);
const input = chatLines(
  ROWS.map((custom_id) => ({ custom_id, model: MODEL, content: `${custom_id} #sim tokens=2` })),
);
const KEY_LINE = /^(sk-[A-Za-z0-9_-]{43})$/m;

/** A test config whose gateway sends two lines a second, on `dataDir`. */
function slowConfig(sim: RunningSimulator, dataDir: string): ConfigDoc {
  const doc = testConfig(sim.url, dataDir);
  doc.batches = { lines_per_second: 2, line_concurrency: 1 };
  return doc;
}

/** How many times the upstream was sent each row's prompt. */
function sentPerRow(sim: RunningSimulator): Map<string, number> {
  const sent = new Map<string, number>();
  for (const entry of sim.log.list()) {
    const text = JSON.stringify(entry.body ?? '');
    const row = ROWS.find((r) => text.includes(`${r} #sim`));
    if (row) sent.set(row, (sent.get(row) ?? 0) + 1);
  }
  return sent;
}

const startBatch = async (client: OpenAI) => {
  const file = await uploadBatchFile(client, input);
  return createBatch(client, file.id);
};

const answered = (client: OpenAI, id: string, atLeast: number) =>
  until(
    () => client.batches.retrieve(id),
    (b) => (b.request_counts?.completed ?? 0) >= atLeast,
    { what: `${atLeast} lines answered`, timeoutMs: 20_000 },
  );

t.test('a gateway stopped mid-batch: the next one on its data directory finishes it', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dataDir = await tempDir(t);
  const first = await startGateway(buildConfig(slowConfig(sim, dataDir)));
  const key = first.firstKey!.key;
  let client = new OpenAI({ baseURL: `${first.url}/v1`, apiKey: key, maxRetries: 0 });
  const created = await startBatch(client);
  await answered(client, created.id, 2);
  await first.close(5_000);

  const second = await startGateway(buildConfig(slowConfig(sim, dataDir)));
  await closedAtEnd(t, second);
  client = new OpenAI({ baseURL: `${second.url}/v1`, apiKey: key, maxRetries: 0 });
  const batch = await endedBatch(client, created.id, 30_000);
  t.equal(batch.status, 'completed');
  t.same(batch.request_counts, { total: LINES, completed: LINES, failed: 0 }, 'every line answered');
  const output = await resultLines(client, batch.output_file_id!);
  t.same(output.map((l) => l.custom_id).sort(), [...ROWS].sort(), 'each custom_id once');
  t.ok(
    [...sentPerRow(sim).values()].every((n) => n === 1),
    'each line sent upstream once',
  );
  t.equal(sentPerRow(sim).size, LINES);
  const records = await batchRecords(second.usage, batch.id);
  t.same(records.map((r) => r.custom_id).sort(), [...ROWS].sort(), 'each line billed once');
});

t.test('a gateway killed mid-batch: no line lost, none sent twice, each run billed once', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  const dataDir = join(dir, 'data');
  const doc = slowConfig(sim, dataDir);
  doc.logging = { level: 'info' }; // the start-up lines say where it listens
  doc.video = { lease: '500ms', sweep_every: '100ms' }; // a dead instance's batch is taken over soon
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  const env = { GATEWAY_CONFIG: file, PORT: '0', ADMIN_PORT: '0' };

  const killed = spawnGateway(t, env);
  const [, key] = await killed.waitFor(KEY_LINE);
  let { url } = await listeningOn(killed);
  let client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key!, maxRetries: 0 });
  const created = await startBatch(client);
  await answered(client, created.id, 2);
  killed.child.kill('SIGKILL');
  t.equal(await killed.exited, null, 'killed, no clean exit');

  const restarted = spawnGateway(t, env);
  ({ url } = await listeningOn(restarted));
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key!, maxRetries: 0 });
  const batch = await endedBatch(client, created.id, 30_000);
  t.equal(batch.status, 'completed');
  const output = await resultLines(client, batch.output_file_id!);
  const errors = batch.error_file_id ? await resultLines(client, batch.error_file_id) : [];
  const ids = [...output, ...errors].map((l) => l.custom_id).sort();
  t.same(ids, [...ROWS].sort(), 'every custom_id once, in the output or the error file');
  t.ok(
    errors.every((l) => (l.error as { code: string } | null)?.code === 'batch_line_interrupted'),
    'a line without an answer was cut by the kill, not dropped',
  );
  t.ok(errors.length <= 1, 'at most the line in flight at the kill is lost (one at a time)');
  const sent = sentPerRow(sim);
  t.ok(
    [...sent.values()].every((n) => n === 1),
    'no line sent upstream twice',
  );
  t.equal(sent.size + errors.filter((l) => !sent.has(l.custom_id as string)).length, LINES);

  // Records are queued and written in batches: a SIGKILL may lose the last one queued, as for any call.
  const outputIds = output.map((l) => l.custom_id as string).sort();
  const billed = await until(
    async () => (await usageOf(dataDir)).filter((r) => r.batch_id === batch.id).map((r) => r.custom_id!),
    (ids) => ids.length >= outputIds.length - 1,
    { what: 'the restarted gateway to write its records' },
  );
  t.equal(new Set(billed).size, billed.length, 'no line billed twice');
  t.ok(
    billed.every((id) => outputIds.includes(id)),
    'only lines answered are billed',
  );
});

/** The usage records the gateway wrote to its data directory. */
async function usageOf(dataDir: string): Promise<UsageRecord[]> {
  const text = await readFile(join(dataDir, 'usage.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as UsageRecord);
}
