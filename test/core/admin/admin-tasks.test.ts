/**
 * The video task side of the admin API over real HTTP, with real tasks run by the simulator: the list
 * (filters, paging), a task's detail with its status history and billed cost, a failed task's upstream
 * error, bad input, and that no answer carries a lease or an idempotency body hash.
 */
import t from 'tap';
import { isError } from '../../helpers/errors';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { type JsonResponse } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { PROTOCOLS, submitVideo, videoBody, type ProtocolName } from '../../plugins/video-helpers';

interface TaskView {
  id: string;
  status: string;
  model: string;
  key_id: string | null;
  protocol: string;
  created_at: string;
  finished_at: string | null;
  cost_micros: number | null;
  error: { code: string; message: string } | null;
  history?: { status: string; at: string }[];
}
type Page = { data: TaskView[]; next_cursor: string | null };

/** Every admin answer, to look for what must never be in one. */
const answers: string[] = [];

const admin = async <T>(gw: TestGateway, path: string): Promise<JsonResponse<T>> => {
  const res = await fetch(`${gw.gateway.adminUrl}${path}`, {
    headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
  });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as T, text };
};

/** Submits a task, waits until it ends, and returns its gateway id. */
async function runTask(
  gw: TestGateway,
  protocol: ProtocolName,
  model: string,
  directives: string,
  key = gw.key,
): Promise<string> {
  const res = await submitVideo(
    gw,
    protocol,
    videoBody(model, directives),
    { 'idempotency-key': directives + Math.random() },
    key,
  );
  const id = PROTOCOLS[protocol].taskId(res.body);
  // Through the admin API: a task of another key is not the default key's to query.
  const terminal = new Set(['succeeded', 'failed', 'cancelled']);
  await eventually(
    async () => terminal.has((await admin<TaskView>(gw, `/admin/tasks/${id}`)).body.status),
    10_000,
  );
  return id;
}

void t.test('admin video tasks', async (t) => {
  const gw = await startTestGateway(t);
  const otherKey = await gw.createKey({ description: 'other' });
  // Queued a tenth of task_ms, then running: polls every 25 to 100 ms see both.
  const ok1 = await runTask(gw, 'generic', 'videoa-1.1-t2v', 'task_ms=400');
  const failed = await runTask(gw, 'native-a', 'videoa-1.0-t2v', 'task_ms=100 fail');
  const ok2 = await runTask(gw, 'native-b', 'videob-2-0-260128', 'task_ms=400', otherKey);
  const ok3 = await runTask(gw, 'generic', 'videoa-1.1-t2v', 'task_ms=100');
  const billed = async (id: string): Promise<boolean> =>
    (await admin<TaskView>(gw, `/admin/tasks/${id}`)).body.cost_micros !== null;
  await eventually(async () => (await billed(ok1)) && (await billed(ok2)) && (await billed(ok3)));

  await t.test('detail: the status history, and the cost of the usage record', async (t) => {
    const res = await admin<TaskView>(gw, `/admin/tasks/${ok1}`);
    t.equal(res.status, 200);
    t.match(res.body, { id: ok1, status: 'succeeded', model: 'videoa-1.1-t2v', protocol: 'generic' });
    // A poll that comes late (a loaded machine) may see the task succeeded without seeing it run.
    const statuses = res.body.history?.map((h) => h.status) ?? [];
    t.ok(
      ['queued,running,succeeded', 'queued,succeeded'].includes(statuses.join()),
      `queued → (running →) succeeded: ${statuses.join(' → ')}`,
    );
    const times = res.body.history?.map((h) => h.at) ?? [];
    t.strictSame(times, [...times].sort(), 'in time order');
    t.equal(res.body.history?.[0]?.at, res.body.created_at, 'queued at creation');
    t.equal(res.body.history?.at(-1)?.at, res.body.finished_at, 'succeeded when it finished');
    const usage = await admin<{ data: { cost_micros: number }[] }>(gw, `/admin/usage?id=${ok1}`);
    t.equal(usage.body.data.length, 1);
    t.equal(res.body.cost_micros, usage.body.data[0]!.cost_micros, 'the cost is the usage record’s');
    t.ok(res.body.cost_micros! > 0);
  });

  await t.test('a failed task shows its upstream error, no cost', async (t) => {
    const res = await admin<TaskView>(gw, `/admin/tasks/${failed}`);
    t.match(res.body, {
      status: 'failed',
      protocol: 'native-a',
      cost_micros: null,
      error: { code: 'InternalError.Algo', message: String },
    });
    t.equal(res.body.history?.at(-1)?.status, 'failed');
  });

  await t.test('the list: newest first, filtered, paged', async (t) => {
    const all = await admin<Page>(gw, '/admin/tasks');
    t.equal(all.status, 200);
    t.strictSame(
      all.body.data.map((x) => x.id),
      [ok3, ok2, failed, ok1],
      'newest first',
    );
    t.equal(all.body.next_cursor, null, 'one page holds them all');
    t.notOk('history' in all.body.data[0]!, 'the list has no history');

    const succeeded = await admin<Page>(gw, '/admin/tasks?status=succeeded');
    t.strictSame(
      succeeded.body.data.map((x) => x.id),
      [ok3, ok2, ok1],
    );
    const ofFailed = await admin<Page>(gw, '/admin/tasks?status=failed');
    t.strictSame(
      ofFailed.body.data.map((x) => x.id),
      [failed],
    );
    const byModel = await admin<Page>(gw, '/admin/tasks?model=videob-2-0-260128');
    t.strictSame(
      byModel.body.data.map((x) => x.id),
      [ok2],
    );
    const otherId = (await admin<TaskView>(gw, `/admin/tasks/${ok2}`)).body.key_id!;
    const byKey = await admin<Page>(gw, `/admin/tasks?key_id=${otherId}`);
    t.strictSame(
      byKey.body.data.map((x) => x.id),
      [ok2],
      'filtered by key',
    );

    const seen: string[] = [];
    let path = '/admin/tasks?limit=3';
    for (;;) {
      const page = await admin<Page>(gw, path);
      seen.push(...page.body.data.map((x) => x.id));
      if (!page.body.next_cursor) break;
      path = `/admin/tasks?limit=3&cursor=${page.body.next_cursor}`;
    }
    t.strictSame(seen, [ok3, ok2, failed, ok1], 'pages of 3: each task once, in order');
  });

  await t.test('unknown id → 404; bad parameters → 400', async (t) => {
    isError(t, await admin(gw, '/admin/tasks/video_nope'), 404, 'task_not_found', 'video_nope');
    isError(t, await admin(gw, `/admin/tasks/${ok1}/more`), 404, 'not_found');
    const bad: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['status=done', 'status'],
      ['status=failed&status=queued', 'status'],
      ['cursor=nonsense', 'cursor'],
      [`cursor=${Buffer.from('12:').toString('base64url')}`, 'cursor'],
      ['model=', 'model'],
      ['sort=asc', 'sort'],
    ];
    for (const [query, name] of bad) {
      isError(t, await admin(gw, `/admin/tasks?${query}`), 400, 'invalid_request', `'${name}'`);
    }
  });

  await t.test('no answer carries a lease or an idempotency body hash', async (t) => {
    const hash = (await gw.gateway.tasks.get(ok1))?.idempotency?.body_hash;
    t.ok(hash, 'the store holds a body hash');
    t.ok(answers.length > 10);
    t.notOk(
      answers.some((text) => text.includes(hash!)),
      'not its value',
    );
    t.notOk(
      answers.some((text) => /lease|body_hash|idempotency/.test(text)),
      'nor the fields',
    );
  });
});
