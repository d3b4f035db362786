/**
 * The gateway process killed (SIGKILL) while the upstream holds a video submit that carries an
 * Idempotency-Key, then restarted on the same data directory, and the client retrying with the same key
 * and body: the retry is answered with the task whose submit may still be under way while its submit
 * lease lasts, and once that lease has run out with a new task, which succeeds and is billed once. The
 * first task ends failed `submit_interrupted`, unbilled, and is never answered again for the key.
 */
import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { UsageRecord } from '../../../core/stores/usage-store';
import type { VideoTask } from '../../../core/stores/video-task';
import { startSimulator } from '../../../simulator/server';
import { tempDir, testConfig, type TestGateway } from '../../helpers/gateway';
import { getJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { listeningOn, spawnGateway, type GatewayProcess } from '../../helpers/process';
import { queryVideo, submitVideo, untilFinished, videoBody } from '../../plugins/video-helpers';

const KEY_LINE = /^(sk-[A-Za-z0-9_-]{43})$/m;
const WITH_KEY = { 'idempotency-key': 'order-killed-mid-submit' };
/** How long the simulator holds the submit before answering (video submits forward no client headers,
 * so the latency is asked for by a directive in the prompt; the retry, with the same body, waits too). */
const SUBMIT_LATENCY_MS = 3_000;

/** The last snapshot of each task in the embedded store's journal (read while the gateway is down). */
async function journal(dataDir: string): Promise<Map<string, VideoTask>> {
  const tasks = new Map<string, VideoTask>();
  for (const line of (await readFile(join(dataDir, 'tasks.jsonl'), 'utf8')).split('\n')) {
    if (!line) continue;
    const task = JSON.parse(line) as VideoTask;
    tasks.set(task.id, task);
  }
  return tasks;
}

void t.test(
  'SIGKILL while the upstream holds an idempotent submit: the retry gets a new task, billed once',
  async (t) => {
    const sim = await startSimulator();
    t.teardown(() => sim.close());
    const dir = await tempDir(t);
    const dataDir = join(dir, 'data');
    const doc = testConfig(sim.url, dataDir);
    doc.video = { lease: '500ms', sweep_every: '100ms' };
    // The submit lease is not `video.lease` but the longest the submit call may take: the upstream's
    // connect and response timeouts plus 30 s for the writes around it (core/tasks/submission.ts). The
    // timeouts are short here (35.5 s in all, not 95 s), and the test sleeps through most of it.
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    upstreams['videoa-main']!.timeouts = { connect: '500ms', response: '5s' };
    doc.logging = { level: 'info' }; // the start-up lines say when it is ready; the warning is read too
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, stringify(doc));
    // Ports of the system's choosing: the restart listens on new ones, which its start-up lines name.
    const env = { GATEWAY_CONFIG: file, PORT: '0', ADMIN_PORT: '0' };

    let gateway: GatewayProcess = spawnGateway(t, env);
    const [, key] = await gateway.waitFor(KEY_LINE);
    // The video helpers need only a URL and a key of the gateway.
    let client = { url: (await listeningOn(gateway)).url, key: key! } as TestGateway;
    const body = videoBody('videoa-1.1-t2v', `latency_ms=${SUBMIT_LATENCY_MS} task_ms=300`);

    // The submit reaches the simulator, which sits on it; the gateway dies before the answer.
    const lost = submitVideo(client, 'generic', body, WITH_KEY).then(
      () => 'answered',
      () => 'connection lost',
    );
    const upstreamSubmit = () =>
      sim.log.list().find((r) => r.method === 'POST' && r.path.includes('video-synthesis'));
    await eventually(() => upstreamSubmit()?.body != null, 10_000, 'the submit at the simulator');
    gateway.child.kill('SIGKILL');
    t.equal(await gateway.exited, null, 'killed, no clean exit');
    t.equal(await lost, 'connection lost', 'the client never got an answer');
    await eventually(() => upstreamSubmit()?.aborted === true, 10_000, 'the submit aborted');

    const [first, ...others] = [...(await journal(dataDir)).values()];
    t.equal(others.length, 0, 'one task stored');
    t.match(
      first,
      { status: 'queued', upstream_task_id: null, idempotency: { key: WITH_KEY['idempotency-key'] } },
      'stored before the upstream was called, with no upstream id and holding the key',
    );
    const submitLeaseUntil = first!.lease!.until;

    gateway = spawnGateway(t, env);
    const restarted = await listeningOn(gateway);
    client = { url: restarted.url, key: key! } as TestGateway;
    // While the dead instance's submit lease lasts, the submit may still be under way: answered as is.
    const early = await submitVideo(client, 'generic', body, WITH_KEY);
    t.ok(Date.now() < submitLeaseUntil, 'the first retry came while the submit lease was live');
    t.equal(early.body.id, first!.id, 'and was answered with the first task');

    // Once the lease has run out, the poller or the retry itself fails the first task and frees the key.
    // A sleep, as the subject is time passing: until the lease's end (the gateway reads the same clock),
    // and a little more.
    await new Promise((r) => setTimeout(r, Math.max(0, submitLeaseUntil - Date.now() + 100)));
    const retry = await submitVideo(client, 'generic', body, WITH_KEY);
    t.equal(retry.status, 200, 'the retry after the lease is accepted');
    const id = String(retry.body.id);
    t.not(id, first!.id, 'with a new task, not the dead one');
    t.equal((await submitVideo(client, 'generic', body, WITH_KEY)).body.id, id, 'the key now names it');

    const done = await untilFinished(client, 'generic', id, 10_000);
    t.equal(done.body.status, 'completed', 'the new task succeeds');
    const firstView = await queryVideo(client, 'generic', first!.id);
    t.match(
      firstView.body,
      { status: 'failed', error: { code: 'submit_interrupted' } },
      'the first task reads as failed submit_interrupted',
    );
    // Failed once, by whichever came first after the lease ran out: the poller or the retry.
    const warnings = gateway
      .stdout()
      .split('\n')
      .filter((line) => line.includes(`"task":"${first!.id}"`) && line.includes('upstream task may exist'));
    t.equal(warnings.length, 1, 'the restarted gateway warned once about the first task, for reconciliation');
    t.match(JSON.parse(warnings[0] ?? '{}'), {
      level: 40,
      request_id: first!.request_id,
      upstream: 'videoa-main',
    });

    // Billing, as the admin API reports it.
    const adminToken = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
    const usageOf = async (taskId: string): Promise<UsageRecord[]> =>
      (await getJson<{ data: UsageRecord[] }>(`${restarted.adminUrl}/admin/usage?id=${taskId}`, adminToken))
        .body.data;
    await eventually(async () => (await usageOf(id)).length > 0, 10_000, 'the new task billed');
    t.equal((await usageOf(id)).length, 1, 'the new task is billed once');
    t.strictSame(await usageOf(first!.id), [], 'the first task is not billed');

    // The simulator creates a task only after its latency, and only if the caller is still connected
    // (simulator/tasks/task-exchange.ts): the killed submit's connection closed during the latency, so it
    // left no upstream task, and the simulator saw exactly one, the retry's. A real vendor may create the
    // task before it answers; then a second, paid task exists that the gateway never learnt of, which is
    // what the warning above is for (neither vendor can be asked for a task by a client token).
    const upstreamTasks = await getJson<unknown[]>(`${sim.url}/_sim/tasks`);
    t.equal(upstreamTasks.body.length, 1, 'one upstream task in all');
  },
);
