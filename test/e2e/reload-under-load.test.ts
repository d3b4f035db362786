/**
 * Twenty reloads under load: about 200 requests a second and 100 open streams while gateway.yaml is
 * rewritten (routes and weights, an upstream added and removed, the stream's own upstream removed and
 * restored, changed limits). No request fails, every stream completes, and each change applies to the
 * request sent right after its reload.
 */
import { type ConfigDoc } from '../helpers/gateway'; // first: it loads the plugins
import t from 'tap';
import { openStream, postJson } from '../helpers/http';
import { eventually } from '../helpers/wait';
import { startFileGateway, type FileGateway } from '../helpers/reload';

const CHAT = '/v1/chat/completions';
const RELOADS = 20;
const STREAMS = 100;
const RATE_PER_SECOND = 200;
/** Requests sent between two reloads before the next one: 150 ms of the rate, however long that takes. */
const BETWEEN = 30;
const ask = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi #sim tokens=2' }] };

type Upstreams = Record<string, Record<string, unknown>>;

/** The i-th configuration, and the upstream that must serve modela-5.5 under it. */
function variant(base: ConfigDoc, i: number): { doc: ConfigDoc; serves: string } {
  const doc = structuredClone(base);
  const upstreams = doc.upstreams as Upstreams;
  const extra = i % 2 === 1; // every other one adds an upstream the next one removes
  if (extra) upstreams['modela-extra'] = { ...upstreams['modela-main']! };
  if (i % 4 === 1) delete upstreams['modelc-main']; // the open streams' upstream, gone for a while
  const serves = extra && i % 3 !== 0 ? 'modela-extra' : 'modela-main';
  doc.routes = { 'modela-5.5': { targets: [{ upstream: serves, weight: 1 + (i % 5) }] } };
  (doc.pipeline as unknown[])[2] = { 'rate-limit': { requests_per_minute: 100_000 + i } };
  return { doc, serves };
}

async function servedBy(gw: FileGateway, id: string): Promise<string | undefined> {
  let upstream: string | undefined;
  await eventually(async () => {
    upstream = (await gw.gateway.usage.list({ id }))[0]?.upstream;
    return upstream !== undefined;
  });
  return upstream;
}

interface Outcome {
  readonly status: number;
  readonly text: string;
}

/** Opens a stream that lasts about four seconds; resolves once it is open, with its whole outcome to come. */
async function stream(gw: FileGateway): Promise<{ outcome: Promise<Outcome> }> {
  const body = { model: 'modelc-3.6-plus', stream: true, messages: [{ role: 'user', content: 'hi' }] };
  const res = await openStream(`${gw.url}${CHAT}`, body, gw.key, { 'x-sim-tps': '10', 'x-sim-tokens': '40' });
  res.setEncoding('utf8');
  let text = '';
  res.on('data', (chunk: string) => (text += chunk));
  const outcome = new Promise<Outcome>((resolve) =>
    res.on('end', () => resolve({ status: res.statusCode ?? 0, text })),
  );
  return { outcome };
}

/**
 * Sends RATE_PER_SECOND requests a second (as the machine allows) until `stop` resolves, noting when
 * each was sent in `sentAt`; resolves with their statuses. Paced by the clock, as the rate is the load
 * asked for; nothing checked depends on keeping it (the reloads wait for requests sent, not for time).
 */
async function steadyLoad(gw: FileGateway, stop: Promise<void>, sentAt: number[]): Promise<number[]> {
  const pending: Promise<number>[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  const started = Date.now();
  while (!stopped) {
    const due = started + (pending.length * 1000) / RATE_PER_SECOND;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    sentAt.push(Date.now());
    pending.push(
      postJson(`${gw.url}${CHAT}`, ask, gw.key).then(
        (r) => r.status,
        () => 0,
      ),
    );
  }
  return Promise.all(pending);
}

t.test('reloads under load drop nothing and apply to the next request', async (t) => {
  const gw = await startFileGateway(t);
  const base = gw.doc();
  const streams = await Promise.all(Array.from({ length: STREAMS }, () => stream(gw)));
  let reloaded: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (reloaded = resolve));
  const started = Date.now();
  const sentAt: number[] = [];
  const reloadedAt: number[] = [started];
  const load = steadyLoad(gw, done, sentAt);

  const probes: { expected: string; id: string; status: number }[] = [];
  for (let i = 1; i <= RELOADS; i++) {
    const since = reloadedAt.at(-1)!;
    await eventually(
      () => sentAt.filter((at) => at > since).length >= BETWEEN,
      10_000,
      `${BETWEEN} requests sent before reload ${i}`,
    );
    const { doc, serves } = variant(base, i);
    await gw.write(doc);
    const reload = await gw.admin('POST', '/admin/reload');
    reloadedAt.push(Date.now());
    t.equal(reload.body.applied, true, `reload ${i} applied`);
    const probe = await postJson(`${gw.url}${CHAT}`, ask, gw.key);
    probes.push({ expected: serves, id: probe.headers.get('x-request-id') ?? '', status: probe.status });
  }
  reloaded();
  const statuses = await load;
  const seconds = (Date.now() - started) / 1000;
  t.comment(
    `${statuses.length} requests in ${seconds.toFixed(1)} s (${(statuses.length / seconds).toFixed(0)}/s) beside ${STREAMS} streams and ${RELOADS} reloads`,
  );
  // The rate itself depends on the machine; what the test needs is load between every two reloads.
  const quiet = reloadedAt.slice(1).filter((at, i) => !sentAt.some((s) => s > reloadedAt[i]! && s < at));
  t.same(quiet, [], 'requests were sent between every two reloads');
  t.same(
    statuses.filter((s) => s !== 200),
    [],
    'every request under load answered 200',
  );
  for (const [n, probe] of probes.entries()) {
    t.equal(probe.status, 200);
    t.equal(await servedBy(gw, probe.id), probe.expected, `the request after reload ${n + 1} used it`);
  }
  const outcomes = await Promise.all(streams.map((s) => s.outcome));
  t.same(
    outcomes.filter(
      (o) => o.status !== 200 || !/data: \[DONE\]\s*$/.test(o.text) || o.text.includes('"error"'),
    ),
    [],
    'every stream completed',
  );
  const records = statuses.length + probes.length + STREAMS;
  await eventually(async () => (await gw.gateway.usage.list()).length >= records, 10_000);
  t.equal((await gw.gateway.usage.list()).length, records, 'one usage record per request, none lost');
});
