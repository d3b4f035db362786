/**
 * A batch's time, on a simulator whose clock the test moves: the `/_sim/batches` control, modela's batch
 * through `validating`, `in_progress` (its lines answered one by one), `finalizing` and `completed` with
 * its times, and a cancel that keeps what was answered and runs nothing more.
 */
import type { Clock } from '@sinonjs/fake-timers';
import t, { type Test } from 'tap';
import type OpenAI from 'openai';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { manualClock } from '../helpers/clock';
import {
  chatBody,
  fileLines,
  openAiClient,
  rejection,
  setDuration,
  startBatch,
  type Json,
} from './batch-client';

/** A simulator on a fake clock, its batches set to take 10 s; `start` is the clock's reading in seconds. */
async function timed(
  t: Test,
): Promise<{ sim: RunningSimulator; client: OpenAI; clock: Clock; start: number }> {
  const clock = manualClock();
  const sim = await startSimulator({ clock: clock.read });
  t.teardown(() => sim.close());
  t.strictSame(await setDuration(sim, { duration_ms: 10_000 }), {
    status: 200,
    body: { duration_ms: 10_000 },
  });
  return { sim, client: openAiClient(sim), clock, start: clock.now / 1000 };
}

const FOUR = ['one', 'two', 'three', 'four'].map((text) => chatBody(text));

void t.test('the control: read, set, refused when out of range', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const view = async (): Promise<Json> => (await (await fetch(`${sim.url}/_sim/batches`)).json()) as Json;
  t.strictSame(await view(), { duration_ms: 1000, batches: [] }, 'about a second by default');
  for (const bad of [{ duration_ms: -1 }, { duration_ms: 1.5 }, { duration_ms: 86_400_001 }, {}, []]) {
    t.match(
      await setDuration(sim, bad),
      { status: 400, body: { error: /duration_ms/ } },
      JSON.stringify(bad),
    );
  }
  t.equal(sim.batches.durationMs, 1000, 'a refused value changes nothing');
});

void t.test('a batch runs through its phases, its lines answered as its time runs', async (t) => {
  const { sim, client, clock, start } = await timed(t);
  const created = await startBatch(client, '/v1/chat/completions', FOUR);
  t.match(created, {
    status: 'validating',
    in_progress_at: null,
    request_counts: { total: 0, completed: 0 },
  });
  t.notOk('usage' in created || 'model' in created, 'no model nor usage before validation');
  // Validation takes the first second, finalizing the last; the lines fall due at 3, 5, 7 and 9 s.
  const steps: [number, string, number][] = [
    [1000, 'in_progress', 0],
    [1999, 'in_progress', 0],
    [1, 'in_progress', 1],
    [2000, 'in_progress', 2],
    [2000, 'in_progress', 3],
    [2000, 'finalizing', 4],
    [999, 'finalizing', 4],
    [1, 'completed', 4],
  ];
  for (const [ms, status, completed] of steps) {
    clock.tick(ms);
    const batch = await client.batches.retrieve(created.id);
    t.match(
      batch,
      { status, request_counts: { total: 4, completed, failed: 0 } },
      `${clock.now / 1000 - start} s`,
    );
    t.equal(batch.usage?.output_tokens, completed * 12, 'usage as far as the lines have run');
  }
  const done = await client.batches.retrieve(created.id);
  t.match(done, {
    created_at: start,
    in_progress_at: start + 1,
    finalizing_at: start + 9,
    completed_at: start + 10,
    model: 'modela-5.5',
  });
  t.match(
    await client.files.retrieve(done.output_file_id!),
    { created_at: start + 10 },
    'written as it ended',
  );
  const listed = (await (await fetch(`${sim.url}/_sim/batches?family=modela`)).json()) as Json;
  t.match(listed, {
    duration_ms: 10_000,
    batches: [
      {
        family: 'modela',
        id: created.id,
        status: 'completed',
        requests: 4,
        answered: 4,
        duration_ms: 10_000,
      },
    ],
  });
});

void t.test('the control applies to batches created after it', async (t) => {
  const { sim, client } = await timed(t);
  const slow = await startBatch(client, '/v1/chat/completions', FOUR);
  await setDuration(sim, { duration_ms: 0 });
  const quick = await startBatch(client, '/v1/chat/completions', FOUR);
  t.equal(quick.status, 'completed', 'no time at all');
  t.equal((await client.batches.retrieve(slow.id)).status, 'validating', 'the earlier batch keeps its 10 s');
});

void t.test('a cancel keeps the lines answered and runs no other', async (t) => {
  const { client, clock, start } = await timed(t);
  const created = await startBatch(client, '/v1/chat/completions', FOUR);
  clock.tick(5000);
  const cancelling = await client.batches.cancel(created.id);
  t.match(cancelling, {
    status: 'cancelling',
    cancelling_at: start + 5,
    request_counts: { total: 4, completed: 2 },
  });
  t.equal((await client.batches.cancel(created.id)).status, 'cancelling', 'cancelling again changes nothing');
  clock.tick(999);
  t.equal((await client.batches.retrieve(created.id)).status, 'cancelling', 'for a tenth of its time');
  clock.tick(1);
  const cancelled = await client.batches.retrieve(created.id);
  t.match(cancelled, {
    status: 'cancelled',
    cancelled_at: start + 6,
    completed_at: null,
    finalizing_at: null,
  });
  clock.tick(10_000);
  const later = await client.batches.retrieve(created.id);
  t.strictSame(later.request_counts, { total: 4, completed: 2, failed: 0 }, 'nothing ran after the cancel');
  t.strictSame(
    (await fileLines(client, later.output_file_id!)).map((l) => l.custom_id),
    ['c1', 'c2'],
    'the lines answered before it, in the output file',
  );
  t.match(await rejection(client.batches.cancel(created.id)), {
    status: 409,
    error: {
      message: "Cannot cancel a batch with status 'cancelled'.",
      type: 'invalid_request_error',
      code: null,
    },
  });
});

void t.test('a cancel while validating runs nothing; a finished batch cannot be cancelled', async (t) => {
  const { client, clock } = await timed(t);
  const early = await startBatch(client, '/v1/chat/completions', FOUR);
  t.equal((await client.batches.cancel(early.id)).status, 'cancelling');
  clock.tick(20_000);
  const cancelled = await client.batches.retrieve(early.id);
  t.match(cancelled, {
    status: 'cancelled',
    in_progress_at: null,
    output_file_id: null,
    error_file_id: null,
  });
  t.strictSame(cancelled.request_counts, { total: 0, completed: 0, failed: 0 });
  const refused = await startBatch(client, '/v1/chat/completions', [
    chatBody('a'),
    chatBody('b', 'modela-mini'),
  ]);
  await client.batches.cancel(refused.id);
  clock.tick(20_000);
  t.match(
    await client.batches.retrieve(refused.id),
    { status: 'cancelled', errors: null },
    'cancelled before it failed',
  );
  const finished = await startBatch(client, '/v1/chat/completions', FOUR);
  clock.tick(10_000);
  t.match(await rejection(client.batches.cancel(finished.id)), {
    status: 409,
    error: { message: "Cannot cancel a batch with status 'completed'." },
  });
});
