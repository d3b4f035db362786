/**
 * A submit records the job it started even when its lease was lost meanwhile (taken by another party
 * after it ran out): the upstream's task id is stored, polled and billed. Only a task already failed as
 * interrupted cannot take it, and then the upstream job is logged, with its id, to reconcile. What the
 * other party does "meanwhile" it does when the submit comes to record the upstream's answer, just
 * before that write: a hook on the store, not a race against the upstream's latency.
 */
import 'reflect-metadata';
import t from 'tap';
import { interruptedChange } from '../../../core/tasks/interrupted-submit';
import type { TaskChange, VideoTask } from '../../../core/stores/video-task';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { eventually } from '../../helpers/wait';
import { LEVEL, recordingLogger } from '../../helpers/logs';
import { submitVideo, untilFinished, videoBody } from '../../plugins/video-helpers';

const MODEL = 'videoa-1.1-t2v';
/** Far enough ahead that any submit lease has run out by then. */
const LATER = 10 ** 13;

/**
 * Runs `meanwhile` (once) when a submit comes to record the job the upstream accepted, before the
 * record; `recorded` then holds what the record returned. The submit answers its client after that.
 */
function beforeRecording(
  gw: TestGateway,
  meanwhile: (id: string) => Promise<void>,
): { readonly recorded: () => VideoTask | undefined } {
  const store = gw.gateway.tasks;
  const settleSubmit = store.settleSubmit.bind(store);
  let recorded: VideoTask | undefined;
  store.settleSubmit = async (id: string, change: TaskChange, now: number) => {
    if (change.upstream_task_id === undefined) return settleSubmit(id, change, now);
    store.settleSubmit = settleSubmit;
    await meanwhile(id);
    recorded = await settleSubmit(id, change, now);
    return recorded;
  };
  return { recorded: () => recorded };
}

t.test('a submit whose lease was taken while the upstream answered still records its job', async (t) => {
  const gw = await startTestGateway(t);
  let thief: VideoTask | undefined;
  const hook = beforeRecording(gw, async (id) => {
    thief = await gw.gateway.tasks.acquire(id, { owner: 'another', until: LATER + 60_000 }, LATER);
  });
  const res = await submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=200'));
  t.ok(thief, 'the lease was taken (as after it ran out)');
  t.equal(res.status, 200);
  const id = String(res.body.id);
  // As the submit wrote it: this instance's poller may take the lease at once afterwards.
  const stored = hook.recorded();
  t.equal(stored?.id, id);
  t.type(stored?.upstream_task_id, 'string', 'the upstream task id is stored');
  t.match(stored?.lease, { owner: /\/poller$/, until: 0 }, "and the lease handed to this instance's poller");
  t.equal((await untilFinished(gw, 'generic', id)).body.status, 'completed');
  await eventually(async () => (await gw.gateway.usage.list({ id })).length === 1, 10_000, 'the bill');
  t.pass('and it is billed');
});

t.test('a task failed as interrupted before its submit settled: the upstream job is logged', async (t) => {
  const { logger, lines } = recordingLogger();
  const gw = await startTestGateway(t, () => undefined, { logger });
  let failed: VideoTask | undefined;
  let taskId = '';
  beforeRecording(gw, async (id) => {
    taskId = id;
    await gw.gateway.tasks.acquire(id, { owner: 'poller', until: LATER + 60_000 }, LATER);
    failed = await gw.gateway.tasks.update(id, 'poller', interruptedChange(Date.now()), LATER);
  });
  const res = await submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=200'));
  t.equal(failed?.status, 'failed');
  t.equal(res.status, 200, 'the upstream took the job: the client is not told to submit again');
  const orphan = lines.find((l) => l.level === LEVEL.error && /not recorded/.test(l.msg));
  t.match(orphan, { task: taskId, upstream: 'videoa-main', upstream_task_id: String }, 'logged to reconcile');
  t.equal((await gw.gateway.tasks.get(taskId))?.status, 'failed', 'the failed task stays failed');
});

t.test(
  'an accepted submit written but reported failed (a write-concern error) is billed once, not orphaned',
  async (t) => {
    const { logger, lines } = recordingLogger();
    const gw = await startTestGateway(t, () => undefined, { logger });
    const store = gw.gateway.tasks;
    const settleSubmit = store.settleSubmit.bind(store);
    let reportedFailed = 0;
    // The store applies the first record of an upstream job and then fails, as MongoDB does when the
    // primary wrote it and the majority's acknowledgement timed out.
    store.settleSubmit = async (id, change, now) => {
      const settled = await settleSubmit(id, change, now);
      if (change.upstream_task_id && reportedFailed++ === 0)
        throw new Error('waiting for replication timed out');
      return settled;
    };
    const res = await submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=200'));
    t.equal(res.status, 200);
    t.equal(reportedFailed, 2, 'the record was tried again after the failure');
    t.equal((await untilFinished(gw, 'generic', String(res.body.id))).body.status, 'completed');
    await eventually(
      async () => (await gw.gateway.usage.list({ id: String(res.body.id) })).length === 1,
      10_000,
      'the bill',
    );
    t.notOk(
      lines.find((l) => /not recorded/.test(l.msg)),
      'no orphaned job logged: the retry found its own record',
    );
  },
);
