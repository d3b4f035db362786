/**
 * A submit cut off by a dead instance (the task stored, the upstream called, its answer never stored)
 * and the client's retry with the same Idempotency-Key. Neither vendor can be asked for a task by a
 * client token, so the dead submit cannot be reconciled: the retry must not stay stuck on it. It is
 * failed (`submit_interrupted`, unbilled) with its key freed, by the poller or by the retry itself, and
 * the retry becomes a new submit; a submit still under way is answered as before. Real embedded store,
 * real simulator; the dead submits are built as a killed instance leaves them.
 */
import 'reflect-metadata';
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { recordingLogger, type LogLine } from '../../helpers/logs';
import { deadSubmitTask } from '../../helpers/tasks';
import { keyId } from '../../../core/keys/api-key';
import type { VideoTask } from '../../../core/stores/video-task';
import { startTestGateway, type ConfigDoc, type TestGateway } from '../../helpers/gateway';
import { eventually, until } from '../../helpers/wait';
import { submitVideo, untilFinished, videoBody } from '../../plugins/video-helpers';

const IDEMPOTENCY_KEY = 'order-after-a-crash';
const WITH_KEY = { 'idempotency-key': IDEMPOTENCY_KEY };
const MODEL = 'videoa-1.1-t2v';

const withoutPoller = (doc: ConfigDoc): void => {
  (doc.video as Record<string, unknown>).poller = false;
};

/** A gateway whose warnings are recorded; its poller is off unless asked for. */
async function gateway(t: Test, poller = false): Promise<{ gw: TestGateway; lines: LogLine[] }> {
  const { logger, lines } = recordingLogger();
  const gw = await startTestGateway(t, poller ? () => undefined : withoutPoller, { logger });
  return { gw, lines };
}

/**
 * What an instance killed while the upstream held its submit leaves in the store: the task, without an
 * upstream id, holding the client's Idempotency-Key for `body` (hashed as the gateway hashes the bytes
 * the test client sends), under that instance's submit lease, expired unless `over` says otherwise.
 */
function deadSubmit(gw: TestGateway, body: unknown, over: Partial<VideoTask> = {}): VideoTask {
  return deadSubmitTask({
    key_id: keyId(gw.key),
    model: MODEL,
    upstream_model: MODEL,
    idempotency: {
      key: IDEMPOTENCY_KEY,
      body_hash: createHash('sha256').update(JSON.stringify(body)).digest('base64url'),
    },
    ...over,
  });
}

/** The warnings that name `taskId` as a submit that may have left an upstream task behind. */
const interruptedWarnings = (lines: LogLine[], taskId: string): LogLine[] =>
  lines.filter((l) => l.task === taskId && /upstream task may exist/.test(l.msg));

void t.test(
  'an expired submit lease: the retry fails the dead task, frees its key and submits anew',
  async (t) => {
    const { gw, lines } = await gateway(t);
    const body = videoBody(MODEL, 'task_ms=50');
    const dead = deadSubmit(gw, body);
    await gw.gateway.tasks.insert(dead, 0);
    const upstreamBefore = gw.sim.tasks.list().length;

    const retry = await submitVideo(gw, 'generic', body, WITH_KEY);
    t.equal(retry.status, 200, 'the retry is accepted');
    const id = String(retry.body.id);
    t.not(id, dead.id, 'with a new task, not the dead one');
    t.match(
      await gw.gateway.tasks.get(dead.id),
      {
        status: 'failed',
        error: { code: 'submit_interrupted' },
        idempotency: null,
        lease: null,
        billed: false,
        finished_at: Number,
      },
      'the dead task is failed, unbilled, and no longer holds the key',
    );
    t.match(
      await gw.gateway.tasks.get(id),
      { idempotency: { key: IDEMPOTENCY_KEY }, upstream_task_id: String, lease: null },
      'the new task holds the key and was accepted upstream',
    );
    t.equal(gw.sim.tasks.list().length, upstreamBefore + 1, 'one upstream task: the retry’s');
    t.match(
      interruptedWarnings(lines, dead.id),
      [{ level: 40, request_id: dead.request_id, upstream: 'videoa-main', model: MODEL }],
      'one warning names the task, request, upstream and model, for reconciliation with the vendor',
    );

    const again = await submitVideo(gw, 'generic', body, WITH_KEY);
    t.equal(again.body.id, id, 'a further retry answers the new task');
    t.equal(gw.sim.tasks.list().length, upstreamBefore + 1, 'and submits nothing');
  },
);

void t.test('a live submit lease: the retry answers the task being submitted, as before', async (t) => {
  const { gw, lines } = await gateway(t);
  const body = videoBody(MODEL, 'task_ms=50');
  const underWay = deadSubmit(gw, body, {
    lease: { owner: 'other-instance/submit', until: Date.now() + 60_000 },
  });
  await gw.gateway.tasks.insert(underWay, 0);
  const upstreamBefore = gw.sim.tasks.list().length;

  const retry = await submitVideo(gw, 'generic', body, WITH_KEY);
  t.equal(retry.status, 200);
  t.equal(retry.body.id, underWay.id, 'the task whose submit is under way');
  t.strictSame(await gw.gateway.tasks.get(underWay.id), underWay, 'left as it was');
  t.equal(gw.sim.tasks.list().length, upstreamBefore, 'nothing submitted upstream');
  t.strictSame(interruptedWarnings(lines, underWay.id), [], 'no warning');
});

void t.test(
  'a task an older version failed as submit_interrupted, still holding its key: the retry submits anew',
  async (t) => {
    const { gw } = await gateway(t);
    const body = videoBody(MODEL, 'task_ms=50');
    const error = {
      code: 'submit_interrupted',
      message: 'the gateway stopped before the upstream confirmed',
    };
    const failed = deadSubmit(gw, body, {
      status: 'failed',
      error,
      lease: null,
      finished_at: Date.now() - 1_000,
    });
    await gw.gateway.tasks.insert(failed, 0);
    const upstreamBefore = gw.sim.tasks.list().length;

    const retry = await submitVideo(gw, 'generic', body, WITH_KEY);
    t.equal(retry.status, 200);
    const id = String(retry.body.id);
    t.not(id, failed.id, 'a new task, not the failed one');
    t.match(
      await gw.gateway.tasks.get(failed.id),
      { status: 'failed', error, idempotency: null, billed: false },
      'the old task keeps its outcome and lets go of the key',
    );
    t.equal(gw.sim.tasks.list().length, upstreamBefore + 1, 'one upstream task');
    t.equal((await submitVideo(gw, 'generic', body, WITH_KEY)).body.id, id, 'the key now names the new task');
  },
);

void t.test(
  'a failed task of another kind keeps its key: only an interrupted submit is submitted again',
  async (t) => {
    const { gw } = await gateway(t);
    const body = videoBody(MODEL, 'task_ms=50');
    const error = { code: 'deadline_exceeded', message: 'the upstream did not finish the task' };
    const failed = deadSubmit(gw, body, {
      status: 'failed',
      error,
      upstream_task_id: 'upstream-task-that-ran',
      lease: null,
      finished_at: Date.now() - 1_000,
    });
    await gw.gateway.tasks.insert(failed, 0);
    const retry = await submitVideo(gw, 'generic', body, WITH_KEY);
    t.equal(retry.body.id, failed.id, 'the retry answers the task the upstream ran');
    t.match(
      await gw.gateway.tasks.get(failed.id),
      { idempotency: { key: IDEMPOTENCY_KEY } },
      'which keeps its key',
    );
  },
);

void t.test('retries at once on one dead submit: one new task, one upstream task, one warning', async (t) => {
  const { gw, lines } = await gateway(t);
  const body = videoBody(MODEL, 'task_ms=50');
  const dead = deadSubmit(gw, body);
  await gw.gateway.tasks.insert(dead, 0);
  const upstreamBefore = gw.sim.tasks.list().length;

  const retries = await Promise.all(
    Array.from({ length: 8 }, () => submitVideo(gw, 'generic', body, WITH_KEY)),
  );
  t.strictSame(
    retries.map((r) => r.status),
    retries.map(() => 200),
  );
  const ids = new Set(retries.map((r) => String(r.body.id)));
  t.equal(ids.size, 1, 'every retry answers the same task');
  t.notOk(ids.has(dead.id), 'and it is not the dead one');
  t.equal(gw.sim.tasks.list().length, upstreamBefore + 1, 'one upstream task between them');
  t.equal(interruptedWarnings(lines, dead.id).length, 1, 'the dead task was failed once');
});

void t.test(
  'the poller fails an interrupted submit and frees its key, with a warning; the next submit with the key is new',
  async (t) => {
    const { gw, lines } = await gateway(t, true);
    const body = videoBody(MODEL, 'task_ms=50');
    const dead = deadSubmit(gw, body);
    await gw.gateway.tasks.insert(dead, 0);
    // The poller warns once its change is written; the store shows the change a moment before (while
    // the write is synced), so the warning is what says the poller is done.
    await until(
      () => interruptedWarnings(lines, dead.id),
      (warnings) => warnings.length > 0,
      { what: 'the poller failing the dead task, with its warning' },
    );
    t.match(
      await gw.gateway.tasks.get(dead.id),
      { status: 'failed', error: { code: 'submit_interrupted' }, idempotency: null, billed: false },
      'failed, unbilled, key freed',
    );
    t.match(
      interruptedWarnings(lines, dead.id),
      [{ level: 40, request_id: dead.request_id, upstream: 'videoa-main', model: MODEL }],
      'the poller warned',
    );

    // The key is free: even another body is a new submit now, not a conflict with the dead one.
    const next = await submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=60'), WITH_KEY);
    t.equal(next.status, 200, 'accepted, not 409');
    t.not(next.body.id, dead.id, 'a new task');
    const done = await untilFinished(gw, 'generic', String(next.body.id));
    t.equal(done.body.status, 'completed', 'which runs to the end');
    await eventually(
      async () => (await gw.gateway.usage.list({ id: String(next.body.id) })).length === 1,
      10_000,
      'the new task billed',
    );
    t.strictSame(await gw.gateway.usage.list({ id: dead.id }), [], 'the dead task is never billed');
  },
);
