/**
 * Session affinity end to end, one gateway in front of two simulators (a target on each): a session's
 * calls reach one target while calls of no session use both; a placed target made to fail until it is
 * ejected loses the session to the other, which keeps it; `by: prefix` keeps a conversation together by
 * its start; a reload keeps the placements of the targets it still has; bad affinity is refused at load.
 */
import t, { type Test } from 'tap';
import { ConfigError } from '../../../../config/errors';
import { buildConfig } from '../../../../config/load';
import { startGateway } from '../../../../core/boot/gateway';
import { startSimulator, type RunningSimulator } from '../../../../simulator/server';
import { startTestGateway, tempDir, testConfig, type ConfigDoc } from '../../../helpers/gateway';
import { adminCall, startFileGateway } from '../../../helpers/reload';
import { until } from '../../../helpers/wait';
import { MODEL, servedBy, servedSet, twoTargets } from '../../../helpers/affinity';

async function backupSimulator(t: Test): Promise<RunningSimulator> {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  return sim;
}

const chatCalls = (sim: RunningSimulator): number =>
  sim.log.list().filter((r) => r.path.endsWith('/chat/completions')).length;

t.test('a session stays on one target; calls without the header use both', async (t) => {
  const backup = await backupSimulator(t);
  const gw = await startTestGateway(t, (doc) => twoTargets(doc, backup.url, { header: 'x-session-id' }));
  const session = await servedSet(12, () => servedBy(gw, 'session-1'));
  t.equal(session.size, 1, `all 12 calls of the session on ${[...session].join()}`);
  const bySimulator = [chatCalls(gw.sim), chatCalls(backup)].sort();
  t.strictSame(bySimulator, [0, 12], "and every one reached that target's simulator");
  const none = await servedSet(30, () => servedBy(gw, undefined));
  t.strictSame([...none].sort(), ['modela-backup', 'modela-main'], 'calls of no session: both');
});

t.test('the placed target ejected: the session moves to the other and stays there', async (t) => {
  const backup = await backupSimulator(t);
  const gw = await startTestGateway(t, (doc) => {
    twoTargets(doc, backup.url, {});
    doc.resilience = { ejection: { consecutive_failures: 2, base: '30s', max: '5m' } };
  });
  const first = await servedBy(gw, 'session-1');
  const other = first === 'modela-main' ? 'modela-backup' : 'modela-main';
  const failing = first === 'modela-main' ? gw.sim : backup;
  failing.faults.add({ match: { path_prefix: '/modela/' }, fault: { status: 500 } });
  const upstreams = () =>
    adminCall<{ data: Record<string, { ejected_until: string | null }> }>(
      gw.gateway,
      'GET',
      '/admin/upstreams',
    );
  // Each call fails on the placed target and is retried on the other: the client sees 200.
  await until(
    async () => {
      t.equal(await servedBy(gw, 'session-1'), other, 'served by the other on a retry');
      return (await upstreams()).body.data[first]?.ejected_until;
    },
    (ejectedUntil) => typeof ejectedUntil === 'string',
    { what: `${first} ejected` },
  );
  const triedBefore = chatCalls(failing);
  t.strictSame(await servedSet(6, () => servedBy(gw, 'session-1')), new Set([other]), 'moved');
  t.equal(chatCalls(failing), triedBefore, 'the ejected target is not tried');
  failing.faults.clear();
  t.strictSame(await servedSet(6, () => servedBy(gw, 'session-1')), new Set([other]), 'and kept');
});

t.test('by: prefix: calls opening alike stay together, whatever their later turns', async (t) => {
  const backup = await backupSimulator(t);
  const gw = await startTestGateway(t, (doc) => twoTargets(doc, backup.url, { by: 'prefix' }));
  const opening = (c: number) => [
    { role: 'system', content: `You are assistant number ${c}.` },
    { role: 'user', content: 'Start here. #sim tokens=2' },
  ];
  const all = new Set<string>();
  for (let c = 0; c < 20; c++) {
    const served = await servedSet(3, (turn) =>
      servedBy(gw, undefined, [
        ...opening(c),
        ...(turn > 0
          ? [
              { role: 'assistant', content: 'Ok.' },
              { role: 'user', content: `Turn ${turn}.` },
            ]
          : []),
      ]),
    );
    t.equal(served.size, 1, `conversation ${c}: every call on ${[...served].join()}`);
    for (const upstream of served) all.add(upstream);
  }
  t.strictSame([...all].sort(), ['modela-backup', 'modela-main'], 'conversations are spread over both');
});

t.test('a reload keeps the placements of the targets it still has', async (t) => {
  const backup = await backupSimulator(t);
  const gw = await startFileGateway(t, (doc) => twoTargets(doc, backup.url, { header: 'x-session-id' }));
  const first = await servedBy(gw, 'session-1');
  const reweighted = gw.doc();
  const route = (reweighted.routes as Record<string, { targets: { upstream: string; weight?: number }[] }>)[
    MODEL
  ]!;
  route.targets = [
    { upstream: 'modela-backup', weight: 5 },
    { upstream: 'modela-main', weight: 5 },
  ];
  await gw.write(reweighted);
  t.match(await gw.admin('POST', '/admin/reload'), { status: 200, body: { applied: true } });
  t.strictSame(await servedSet(6, () => servedBy(gw, 'session-1')), new Set([first]), 'still there');
  route.targets = route.targets.filter((target) => target.upstream !== first);
  route.targets.push({ upstream: first === 'modela-main' ? 'modela-backup' : 'modela-main', weight: 1 });
  const [remaining] = route.targets.map((target) => target.upstream);
  await gw.write(reweighted);
  t.match(await gw.admin('POST', '/admin/reload'), { status: 200, body: { applied: true } });
  t.strictSame(await servedSet(4, () => servedBy(gw, 'session-1')), new Set([remaining]), 'its target gone');
});

t.test('affinity at load: bad values are refused naming the field; one target is accepted', async (t) => {
  const dataDir = await tempDir(t);
  const refused = async (change: (doc: ConfigDoc) => void, path: string, reason: RegExp) => {
    const doc = testConfig('http://127.0.0.1:1', dataDir);
    change(doc);
    const error = await Promise.resolve()
      .then(() => startGateway(buildConfig(doc, {})))
      .then(
        async (gateway) => {
          await gateway.close(0);
          return undefined;
        },
        (e: unknown) => e,
      );
    t.ok(error instanceof ConfigError, `refused: ${path}`);
    t.match((error as ConfigError).problems, [{ path, reason }]);
  };
  const affinity = (value: Record<string, unknown>) => (doc: ConfigDoc) =>
    twoTargets(doc, 'http://127.0.0.1:1', value);
  await refused(affinity({ by: 'session' }), `routes.${MODEL}.affinity.by`, /header|prefix/);
  await refused(affinity({ ttl: 'soon' }), `routes.${MODEL}.affinity.ttl`, /not a duration/);
  await refused(affinity({ header: 'x session' }), `routes.${MODEL}.affinity.header`, /header name/);
  await refused(affinity({ sticky: true }), `routes.${MODEL}.affinity`, /sticky/);
  const embeddings = (doc: ConfigDoc) => {
    doc.routes = {
      'modela-embedding-3-small': { targets: [{ upstream: 'modela-main' }], affinity: { by: 'prefix' } },
    };
  };
  await refused(embeddings, 'routes.modela-embedding-3-small.affinity.by', /no model of this route/);

  const gw = await startTestGateway(t, (doc) => {
    doc.routes = { [MODEL]: { targets: [{ upstream: 'modela-main' }], affinity: {} } };
  });
  t.equal(await servedBy(gw, 'session-1'), 'modela-main', 'one target: accepted, and changes nothing');
});
