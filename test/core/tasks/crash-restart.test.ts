/**
 * The gateway process killed (SIGKILL: no shutdown, no flush) while video tasks are in flight, twice, and
 * restarted on the same data directory: every task still reaches its terminal state, every success is
 * billed exactly once, and no failure is billed. The simulator runs in this process and keeps the
 * upstream tasks going while the gateway is down.
 */
import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { UsageRecord } from '../../../core/stores/usage-store';
import { isTerminal, type TaskStatus } from '../../../core/stores/video-task';
import { startSimulator } from '../../../simulator/server';
import { tempDir, testConfig, type TestGateway } from '../../helpers/gateway';
import { getJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { listeningOn, spawnGateway, type GatewayProcess } from '../../helpers/process';
import {
  PROTOCOLS,
  queryVideo,
  submitVideo,
  videoBody,
  VIDEOB_MODEL,
  type ProtocolName,
} from '../../plugins/video-helpers';

const KEY_LINE = /^(sk-[A-Za-z0-9_-]{43})$/m;

void t.test('SIGKILL mid-flight, twice: every task finishes, each success billed once', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  const dataDir = join(dir, 'data');
  const doc = testConfig(sim.url, dataDir);
  // Short, so that a dead instance's tasks are taken over soon after a restart. Nothing checked depends on
  // when: a lease run out under a stalled event loop only moves a poll, never a bill (bills are conditional).
  doc.video = { lease: '500ms', sweep_every: '100ms' };
  doc.logging = { level: 'info' }; // the start-up lines say when it is ready, and where
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  // Ports of the system's choosing: each restart listens on new ones, which its start-up lines name.
  const env = { GATEWAY_CONFIG: file, PORT: '0', ADMIN_PORT: '0' };

  let gateway: GatewayProcess = spawnGateway(t, env);
  const [, key] = await gateway.waitFor(KEY_LINE);
  let { url, adminUrl } = await listeningOn(gateway);
  // The video helpers need only a URL and a key of the gateway.
  let client = { url, key: key! } as TestGateway;
  const adminToken = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();

  const plan: { protocol: ProtocolName; model: string; directives: string; fails: boolean }[] = [];
  for (let i = 0; i < 24; i++) {
    const protocol = (['generic', 'native-a', 'native-b'] as const)[i % 3]!;
    const model = protocol === 'native-b' ? VIDEOB_MODEL : 'videoa-1.1-t2v';
    const fails = i % 6 === 5;
    plan.push({ protocol, model, directives: `task_ms=${400 + 50 * i}${fails ? ' fail' : ''}`, fails });
  }
  const ids = await Promise.all(
    plan.map(async ({ protocol, model, directives }) => {
      const res = await submitVideo(client, protocol, videoBody(model, directives));
      t.equal(res.status, 200, 'submitted');
      return PROTOCOLS[protocol].taskId(res.body);
    }),
  );

  // Each SIGKILL comes while the gateway works on the tasks: once it has polled one since it started, so
  // that it holds leases and has tasks still to finish. On a slow machine every task may have ended in
  // its store before that (no poll would come): it is killed then all the same.
  const polls = () => sim.log.list().filter((r) => r.method === 'GET').length;
  const allEnded = async () => {
    const page = await getJson<{ data: { status: TaskStatus }[] }>(
      `${adminUrl}/admin/tasks?limit=100`,
      adminToken,
    );
    return page.body.data.length === plan.length && page.body.data.every((task) => isTerminal(task.status));
  };
  for (const kill of [1, 2]) {
    const before = polls();
    await eventually(
      async () => polls() > before || (await allEnded()),
      20_000,
      `a poll, or every task ended, before SIGKILL ${kill}`,
    );
    gateway.child.kill('SIGKILL');
    t.equal(await gateway.exited, null, 'killed, no clean exit');
    gateway = spawnGateway(t, env);
    ({ url, adminUrl } = await listeningOn(gateway));
    client = { url, key: key! } as TestGateway;
  }

  const finals = await Promise.all(
    plan.map(async ({ protocol }, i) => {
      const view = PROTOCOLS[protocol];
      let status = '';
      await eventually(async () => {
        status = view.status((await queryVideo(client, protocol, ids[i]!)).body);
        return status === view.done.succeeded || status === view.done.failed;
      }, 20_000);
      return status;
    }),
  );
  plan.forEach(({ protocol, fails }, i) => {
    t.equal(
      finals[i],
      fails ? PROTOCOLS[protocol].done.failed : PROTOCOLS[protocol].done.succeeded,
      String(ids[i]),
    );
  });

  // The usage file as the restarted gateway wrote it, once the last bill is in.
  const succeeded = ids.filter((_, i) => !plan[i]!.fails);
  const records = async (): Promise<UsageRecord[]> =>
    (await readFile(join(dataDir, 'usage.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as UsageRecord);
  await eventually(async () => {
    const billed = new Set((await records()).map((r) => r.id));
    return succeeded.every((id) => billed.has(id));
  }, 10_000);
  const all = await records();
  for (const [i, id] of ids.entries()) {
    const count = all.filter((r) => r.id === id).length;
    t.equal(count, plan[i]!.fails ? 0 : 1, `${id}: ${plan[i]!.fails ? 'failed, not billed' : 'billed once'}`);
  }
});
