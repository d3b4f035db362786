/**
 * A submit records the job it started even when its lease was lost meanwhile (taken by another party
 * after it ran out): the upstream's task id is stored, polled and billed. Only a task already failed as
 * interrupted cannot take it, and then the upstream job is logged, with its id, to reconcile.
 */
import 'reflect-metadata';
import t from 'tap';
import { interruptedChange } from '../../../core/tasks/interrupted-submit';
import type { VideoTask } from '../../../core/tasks/task';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { eventually } from '../../helpers/http';
import { LEVEL, recordingLogger } from '../../helpers/logs';
import { submitVideo, untilFinished, videoBody } from '../../plugins/video-helpers';

const MODEL = 'videoa-1.1-t2v';
/** Far enough ahead that any submit lease has run out by then. */
const LATER = 10 ** 13;

/** The task a submit under way has stored (it is stored before the upstream is called). */
async function storedTask(gw: TestGateway): Promise<VideoTask> {
  let task: VideoTask | undefined;
  await eventually(async () => {
    [task] = await gw.gateway.tasks.page({ limit: 1 });
    return task !== undefined;
  });
  return task!;
}

t.test('a submit whose lease was taken while the upstream answered still records its job', async (t) => {
  const gw = await startTestGateway(t);
  const submit = submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=200 latency_ms=300'));
  const task = await storedTask(gw);
  const thief = await gw.gateway.tasks.acquire(task.id, { owner: 'another', until: LATER + 60_000 }, LATER);
  t.ok(thief, 'the lease was taken (as after it ran out)');
  const res = await submit;
  t.equal(res.status, 200);
  const stored = await gw.gateway.tasks.get(task.id);
  t.type(stored?.upstream_task_id, 'string', 'the upstream task id is stored');
  t.equal(stored?.lease, null, 'and the lease let go, so the poller takes it');
  t.equal((await untilFinished(gw, 'generic', task.id)).body.status, 'completed');
  await eventually(async () => (await gw.gateway.usage.list({ id: task.id })).length === 1);
  t.pass('and it is billed');
});

t.test('a task failed as interrupted before its submit settled: the upstream job is logged', async (t) => {
  const { logger, lines } = recordingLogger();
  const gw = await startTestGateway(t, () => undefined, { logger });
  const submit = submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=200 latency_ms=300'));
  const task = await storedTask(gw);
  await gw.gateway.tasks.acquire(task.id, { owner: 'poller', until: LATER + 60_000 }, LATER);
  const failed = await gw.gateway.tasks.update(task.id, 'poller', interruptedChange(Date.now()), LATER);
  t.equal(failed?.status, 'failed');
  const res = await submit;
  t.equal(res.status, 200, 'the upstream took the job: the client is not told to submit again');
  const orphan = lines.find((l) => l.level === LEVEL.error && /not recorded/.test(l.msg));
  t.match(
    orphan,
    { task: task.id, upstream: 'videoa-main', upstream_task_id: String },
    'logged to reconcile',
  );
  t.equal((await gw.gateway.tasks.get(task.id))?.status, 'failed', 'the failed task stays failed');
});
