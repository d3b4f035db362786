/**
 * What every TaskStore promises its users (the video endpoints and the poller), run against each
 * implementation. `makeStore(t)` gives fresh, empty storage and opens stores over it; opening again is
 * a reopen (a restart, or another instance). Times are explicit, so nothing here depends on the clock,
 * except a store's own clock where it times leases.
 */
import type { Test } from 'tap';
import { IdempotencyKeyTaken, type TaskStore } from '../../../core/stores/task-store';
import { normalizeTask, STATUS_RANK, type VideoTask } from '../../../core/stores/video-task';
import { type Opener } from '../../helpers/stores';
import { eventually, until } from '../../helpers/wait';

export type MakeTaskStore = (t: Test) => Promise<Opener<TaskStore>>;

/**
 * Whose clock judges leases: the caller's `now` (one process's store), or the store's own (a store shared
 * by hosts). On the store's clock a lease lasts `until - now` from the store's present, so tests that
 * move `now` past a lease's end instead wait for a short lease to run out.
 */
export type LeaseClock = 'caller' | 'store';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
/** A lease the store times on its own clock, in real time. */
const STORE_LEASE_MS = 3_000;
let seq = 0;

/** A task as the submit path stores it: queued, unleased, due at once. */
export function newTask(over: Partial<VideoTask> = {}): VideoTask {
  const id = over.id ?? `vt-${process.pid}-${++seq}`;
  // History and cost as a task stored in that state would have them, unless `over` gives its own.
  return normalizeTask({
    id,
    key_id: 'sk-keyAAAAA',
    model: 'video-1',
    upstream: 'video-main',
    upstream_model: 'video-1-upstream',
    protocol: 'generic',
    request_id: `req-${id}`,
    params: { resolution: '720p', duration_s: 5 },
    upstream_task_id: null,
    status: 'queued',
    video_url: null,
    error: null,
    usage: null,
    created_at: T0,
    updated_at: T0,
    finished_at: null,
    deadline_at: T0 + 60 * MINUTE,
    next_poll_at: T0,
    polls: 0,
    poll_errors: 0,
    lease: null,
    billed: false,
    idempotency: null,
    ...over,
  });
}

/** The error an insert rejected with, or undefined when it resolved. */
const insertError = (store: TaskStore, task: VideoTask, since: number): Promise<unknown> =>
  store.insert(task, since).then(
    () => undefined,
    (e: unknown) => e,
  );

export function taskStoreContract(t: Test, makeStore: MakeTaskStore, clock: LeaseClock = 'caller'): void {
  const callerClock = clock === 'caller';

  t.test('insert then get', async (t) => {
    const store = await (await makeStore(t))();
    const task = newTask();
    await store.insert(task, T0);
    t.strictSame(await store.get(task.id), task, 'the task comes back as stored');
    t.equal(await store.get('vt-unknown'), undefined, 'an unknown id is undefined');
    await t.rejects(store.insert({ ...task, model: 'other' }, T0), 'a taken id is refused');
    t.equal((await store.get(task.id))?.model, task.model, 'and the first task is untouched');
  });

  t.test('every acknowledged change survives a reopen', async (t) => {
    const open = await makeStore(t);
    const first = await open();
    const a = newTask();
    const b = newTask({ idempotency: { key: 'idem-reopen', body_hash: 'h1' } });
    await first.insert(a, T0);
    await first.insert(b, T0);
    await first.acquire(a.id, { owner: 'p1', until: T0 + MINUTE }, T0);
    const running = await first.update(
      a.id,
      'p1',
      { status: 'running', polls: 1, upstream_task_id: 'up-1' },
      T0 + 1,
    );
    await first.close();

    const second = await open();
    t.strictSame(await second.get(a.id), running, 'the last change of a task is there');
    t.strictSame(await second.get(b.id), b, 'an unchanged task is there');
    const again = newTask({ idempotency: { key: 'idem-reopen', body_hash: 'h1' } });
    t.type(await insertError(second, again, T0), IdempotencyKeyTaken, 'idempotency keys are remembered');
    const done = await second.update(a.id, 'p1', { status: 'succeeded', video_url: 'https://v/1' }, T0 + 2);
    t.ok(done, 'the lease taken before the reopen still holds');
    await second.close();

    const third = await open();
    t.strictSame(await third.get(a.id), done, 'a change written after a reopen survives the next one');
    t.strictSame(await third.countByStatus(), {
      queued: 1,
      running: 0,
      succeeded: 1,
      failed: 0,
      cancelled: 0,
    });
  });

  t.test('idempotency keys: one task per API key and key within the window', async (t) => {
    const store = await (await makeStore(t))();
    const idem = { key: 'idem-1', body_hash: 'hash-1' };
    const first = newTask({ idempotency: idem, created_at: T0 });
    await store.insert(first, T0 - MINUTE);

    const retry = newTask({ idempotency: idem, created_at: T0 + 1000 });
    const taken = await insertError(store, retry, T0 + 1000 - MINUTE);
    t.type(taken, IdempotencyKeyTaken, 'the same key within the window is refused');
    t.strictSame((taken as IdempotencyKeyTaken).existing, first, 'and the error carries the first task');
    t.equal(await store.get(retry.id), undefined, 'the refused task is not stored');

    const otherKey = newTask({ key_id: 'sk-keyBBBBB', idempotency: idem });
    t.equal(
      await insertError(store, otherKey, T0 - MINUTE),
      undefined,
      'another API key may use the same key',
    );
    for (let i = 0; i < 3; i++) {
      t.equal(await insertError(store, newTask(), T0 - MINUTE), undefined, `a task without a key (${i + 1})`);
    }

    // Later the window has moved past the first task: its key is released and the new task takes it.
    const later = T0 + 10 * MINUTE;
    const successor = newTask({ idempotency: idem, created_at: later });
    t.equal(
      await insertError(store, successor, later - MINUTE),
      undefined,
      'a key older than the window is free',
    );
    t.strictSame(await store.get(successor.id), successor, 'the new task is stored');
    t.equal((await store.get(first.id))?.status, 'queued', 'the old task itself stays');
    const third = newTask({ idempotency: idem, created_at: later + 1000 });
    const nowTaken = await insertError(store, third, later + 1000 - MINUTE);
    t.equal(
      (nowTaken as IdempotencyKeyTaken | undefined)?.existing.id,
      successor.id,
      'the key is now held by the new task',
    );
  });

  t.test('freeing a key in an update lets a new insert take it', async (t) => {
    const open = await makeStore(t);
    const store = await open();
    const idem = { key: 'idem-freed', body_hash: 'hash-1' };
    const holder = newTask({ idempotency: idem });
    await store.insert(holder, T0 - MINUTE);
    await store.acquire(holder.id, { owner: 'p1', until: T0 + MINUTE }, T0);
    const failed = { status: 'failed', idempotency: null, lease: null } as const;

    t.equal(await store.update(holder.id, 'p2', failed, T0 + 1), undefined, 'not by another owner');
    const early = newTask({ idempotency: idem, created_at: T0 + 2 });
    t.type(await insertError(store, early, T0 - MINUTE), IdempotencyKeyTaken, 'so the key is still held');

    const freed = await store.update(holder.id, 'p1', failed, T0 + 3);
    t.match(freed, { status: 'failed', idempotency: null }, 'the holder frees it with its change');
    const successor = newTask({ idempotency: idem, created_at: T0 + 4 });
    t.equal(
      await insertError(store, successor, T0 - MINUTE),
      undefined,
      'a new task takes the key in the window',
    );
    const third = newTask({ idempotency: idem, created_at: T0 + 5 });
    const taken = await insertError(store, third, T0 - MINUTE);
    t.equal((taken as IdempotencyKeyTaken | undefined)?.existing.id, successor.id, 'which it then holds');
    await store.close();

    const reopened = await open();
    const again = await insertError(reopened, newTask({ idempotency: idem }), T0 - MINUTE);
    t.equal((again as IdempotencyKeyTaken | undefined)?.existing.id, successor.id, 'also after a reopen');
    t.equal((await reopened.get(holder.id))?.idempotency, null, 'and the old task holds nothing');
  });

  t.test('freeIdempotencyKey: only a finished task, and only the key it holds', async (t) => {
    const store = await (await makeStore(t))();
    const idem = (key: string) => ({ key, body_hash: 'hash-1' });
    const cases: [string, Partial<VideoTask>, boolean][] = [
      ['queued', { status: 'queued' }, false],
      ['running', { status: 'running' }, false],
      ['succeeded, not billed yet', { status: 'succeeded', billed: false }, false],
      ['succeeded and billed', { status: 'succeeded', billed: true }, true],
      ['cancelled', { status: 'cancelled' }, true],
      ['failed', { status: 'failed' }, true],
    ];
    for (const [name, over, frees] of cases) {
      const task = newTask({ ...over, idempotency: idem(`idem-free-${name}`) });
      await store.insert(task, T0);
      const freed = await store.freeIdempotencyKey(task.id, `idem-free-${name}`, T0 + 7);
      t.equal(freed !== undefined, frees, `${name}: ${frees ? 'freed' : 'refused'}`);
      const next = newTask({ idempotency: idem(`idem-free-${name}`) });
      const err = await insertError(store, next, T0 - MINUTE);
      t.equal(
        err === undefined,
        frees,
        `${name}: the next insert ${frees ? 'takes' : 'does not take'} the key`,
      );
    }

    const failed = newTask({ status: 'failed', idempotency: idem('idem-free-once') });
    await store.insert(failed, T0);
    t.equal(await store.freeIdempotencyKey('vt-unknown', 'idem-free-once', T0 + 1), undefined, 'unknown id');
    t.equal(await store.freeIdempotencyKey(failed.id, 'another-key', T0 + 1), undefined, 'another key');
    const freed = await store.freeIdempotencyKey(failed.id, 'idem-free-once', T0 + 2);
    t.strictSame(freed, { ...failed, idempotency: null, updated_at: T0 + 2 }, 'only the key changes');
    t.strictSame(await store.get(failed.id), freed, 'as stored');
    t.equal(await store.freeIdempotencyKey(failed.id, 'idem-free-once', T0 + 3), undefined, 'once');
  });

  t.test('acquire: only a task that needs work, and only from a free or expired lease', async (t) => {
    const store = await (await makeStore(t))();
    const task = newTask();
    await store.insert(task, T0);
    t.equal(
      await store.acquire('vt-unknown', { owner: 'p1', until: T0 + MINUTE }, T0),
      undefined,
      'unknown id',
    );

    const leased = await store.acquire(task.id, { owner: 'p1', until: T0 + MINUTE }, T0 + 5);
    if (callerClock)
      t.strictSame(leased?.lease, { owner: 'p1', until: T0 + MINUTE }, 'a free task is leased');
    else t.equal(leased?.lease?.owner, 'p1', 'a free task is leased');
    t.equal(leased?.updated_at, T0 + 5, 'updated_at is the time of the change');
    t.strictSame(await store.get(task.id), leased, 'what acquire returns is what is stored');

    t.equal(
      await store.acquire(task.id, { owner: 'p2', until: T0 + 2 * MINUTE }, T0 + MINUTE - 1),
      undefined,
      'a live lease of another owner is respected',
    );
    const renewed = await store.acquire(task.id, { owner: 'p1', until: T0 + 2 * MINUTE }, T0 + 10);
    t.equal(renewed?.lease?.owner, 'p1', 'the owner may renew its own lease');
    if (callerClock) {
      t.equal(renewed?.lease?.until, T0 + 2 * MINUTE, 'for as long as it asks');
      const takenOver = await store.acquire(
        task.id,
        { owner: 'p2', until: T0 + 3 * MINUTE },
        T0 + 2 * MINUTE,
      );
      t.equal(takenOver?.lease?.owner, 'p2', 'a lease that has run out (until <= now) is taken over');
    }

    const cases: [string, Partial<VideoTask>, boolean][] = [
      ['succeeded and billed', { status: 'succeeded', billed: true }, false],
      ['failed', { status: 'failed' }, false],
      ['cancelled', { status: 'cancelled' }, false],
      ['succeeded, not billed yet', { status: 'succeeded', billed: false }, true],
      ['running', { status: 'running' }, true],
    ];
    for (const [name, over, leasable] of cases) {
      const other = newTask(over);
      await store.insert(other, T0);
      const got = await store.acquire(other.id, { owner: 'p1', until: T0 + MINUTE }, T0);
      t.equal(got !== undefined, leasable, `${name}: ${leasable ? 'leasable' : 'not leasable'}`);
    }
  });

  t.test(
    'settleSubmit: whoever holds the lease, only a task with no upstream id that needs work',
    async (t) => {
      const store = await (await makeStore(t))();
      const submitting = newTask({ lease: { owner: 'submit', until: T0 + MINUTE } });
      await store.insert(submitting, T0);
      // Another party took the lease after it ran out; the submit still records its job.
      await store.acquire(submitting.id, { owner: 'poller', until: T0 + 3 * MINUTE }, T0 + 2 * MINUTE);
      const settled = await store.settleSubmit(
        submitting.id,
        { upstream_task_id: 'up-1', next_poll_at: T0 + 5, lease: null },
        T0 + 2 * MINUTE + 1,
      );
      t.match(
        settled,
        { upstream_task_id: 'up-1', lease: null, status: 'queued' },
        'settled without the lease',
      );
      t.equal(
        await store.settleSubmit(submitting.id, { upstream_task_id: 'up-2' }, T0 + 2 * MINUTE + 2),
        undefined,
        'once: a task with an upstream id is not settled again',
      );
      t.equal((await store.get(submitting.id))?.upstream_task_id, 'up-1');

      const interrupted = newTask({ status: 'failed', finished_at: T0 });
      await store.insert(interrupted, T0);
      t.equal(
        await store.settleSubmit(interrupted.id, { upstream_task_id: 'up-3' }, T0 + 1),
        undefined,
        'not a task already failed (as interrupted)',
      );
      t.equal(
        await store.settleSubmit('vt-unknown', { upstream_task_id: 'up-4' }, T0),
        undefined,
        'not an unknown id',
      );
    },
  );

  t.test('update: only by the lease holder, and the status never moves backwards', async (t) => {
    const store = await (await makeStore(t))();
    const task = newTask();
    await store.insert(task, T0);
    const lease = { owner: 'p1', until: T0 + MINUTE };
    t.equal(await store.update(task.id, 'p1', { polls: 1 }, T0), undefined, 'no lease, no update');
    await store.acquire(task.id, lease, T0);
    t.equal(await store.update(task.id, 'p2', { polls: 1 }, T0 + 1), undefined, 'not by another owner');
    t.equal(await store.update('vt-unknown', 'p1', { polls: 1 }, T0 + 1), undefined, 'not on an unknown id');

    const running = await store.update(
      task.id,
      'p1',
      { status: 'running', upstream_task_id: 'up-9' },
      T0 + 2,
    );
    t.match(running, { status: 'running', upstream_task_id: 'up-9', updated_at: T0 + 2 }, 'the holder may');
    t.equal(
      await store.update(task.id, 'p1', { status: 'queued' }, T0 + 3),
      undefined,
      'running → queued refused',
    );
    const polled = await store.update(
      task.id,
      'p1',
      { status: 'running', polls: 1, next_poll_at: T0 + 5000 },
      T0 + 4,
    );
    t.match(
      polled,
      { status: 'running', polls: 1, next_poll_at: T0 + 5000 },
      'same status: bookkeeping applies',
    );
    if (callerClock) {
      t.equal(
        await store.update(task.id, 'p1', { polls: 2 }, T0 + MINUTE),
        undefined,
        'not once the lease ran out',
      );
    }
    t.equal((await store.get(task.id))?.polls, 1, 'refused updates changed nothing');

    await store.acquire(task.id, { owner: 'p1', until: T0 + 3 * MINUTE }, T0 + MINUTE);
    const done = await store.update(
      task.id,
      'p1',
      {
        status: 'succeeded',
        video_url: 'https://v/2',
        finished_at: T0 + MINUTE + 1,
        usage: { video_seconds: 5 },
      },
      T0 + MINUTE + 1,
    );
    t.equal(done?.status, 'succeeded');
    t.equal(
      await store.update(task.id, 'p1', { status: 'running' }, T0 + MINUTE + 2),
      undefined,
      'succeeded → running refused',
    );
    t.equal(
      await store.update(task.id, 'p1', { status: 'failed' }, T0 + MINUTE + 2),
      undefined,
      'succeeded → failed refused',
    );
    const billed = await store.update(task.id, 'p1', { billed: true, lease: null }, T0 + MINUTE + 3);
    t.match(billed, { status: 'succeeded', billed: true, lease: null }, 'bill, and give the lease back');
    t.equal(
      await store.update(task.id, 'p1', { polls: 9 }, T0 + MINUTE + 4),
      undefined,
      'a released lease holds nothing',
    );

    const jump = newTask();
    await store.insert(jump, T0);
    await store.acquire(jump.id, lease, T0);
    const skipped = await store.update(jump.id, 'p1', { status: 'succeeded' }, T0 + 1);
    t.equal(skipped?.status, 'succeeded', 'queued → succeeded is forward: allowed');
    t.strictSame(await store.get(task.id), billed, 'the store holds the last accepted change');
  });

  t.test(
    'history: one entry per move to another status, none for bookkeeping or refused moves',
    async (t) => {
      const open = await makeStore(t);
      const store = await open();
      const task = newTask();
      await store.insert(task, T0);
      t.strictSame(task.history, [{ status: 'queued', at: T0 }], 'a new task starts queued at created_at');
      await store.acquire(task.id, { owner: 'p1', until: T0 + MINUTE }, T0 + 1);
      await store.update(task.id, 'p1', { status: 'queued', upstream_task_id: 'up-1' }, T0 + 2);
      await store.update(task.id, 'p1', { status: 'running', polls: 1 }, T0 + 3);
      await store.update(task.id, 'p1', { status: 'running', polls: 2 }, T0 + 4);
      await store.update(task.id, 'p1', { polls: 3 }, T0 + 5);
      t.equal(
        await store.update(task.id, 'p1', { status: 'queued' }, T0 + 6),
        undefined,
        'backwards refused',
      );
      await store.update(task.id, 'p1', { status: 'succeeded', finished_at: T0 + 7 }, T0 + 7);
      const billed = await store.update(task.id, 'p1', { billed: true, cost_micros: 500_000 }, T0 + 8);
      const expected = [
        { status: 'queued', at: T0 },
        { status: 'running', at: T0 + 3 },
        { status: 'succeeded', at: T0 + 7 },
      ];
      t.strictSame(billed?.history, expected, 'queued → running → succeeded, each when it moved');
      t.equal(billed?.cost_micros, 500_000, 'the cost is set with billed');
      await store.close();
      const reopened = await (await open()).get(task.id);
      t.strictSame(reopened?.history, expected, 'the history survives a reopen');
    },
  );

  t.test('page: newest first, filtered, and a cursor that gives each task once', async (t) => {
    const store = await (await makeStore(t))();
    const statuses = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
    const tasks = Array.from({ length: 25 }, (_, i) =>
      newTask({
        id: `vt-page-${String(i).padStart(2, '0')}`,
        // Five tasks share each created_at: within it, ids order the page.
        created_at: T0 + Math.floor(i / 5) * 1000,
        status: statuses[i % 5]!,
        key_id: i % 2 === 0 ? 'sk-even' : 'sk-odd',
        model: i < 10 ? 'video-a' : 'video-b',
        ...(i % 3 === 0 ? { team_id: 'team-three' } : {}),
      }),
    );
    for (const task of [...tasks].reverse()) await store.insert(task, T0);
    const newest = [...tasks].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
    const ids = (list: VideoTask[]): string[] => list.map((x) => x.id);

    t.strictSame(ids(await store.page({ limit: 3 })), ids(newest.slice(0, 3)), 'newest first, limited');
    t.equal(newest[0]!.id, 'vt-page-24', 'equal created_at: the greater id first');

    const seen: string[] = [];
    let after: { created_at: number; id: string } | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await store.page({ limit: 10, ...(after ? { after } : {}) });
      seen.push(...ids(page));
      if (page.length < 10) break;
      const last = page[page.length - 1]!;
      after = { created_at: last.created_at, id: last.id };
    }
    t.strictSame(seen, ids(newest), 'pages of 10 give all 25 in order, each once');

    const only = (keep: (x: VideoTask) => boolean): string[] => ids(newest.filter(keep));
    t.strictSame(
      ids(await store.page({ limit: 100, status: 'failed' })),
      only((x) => x.status === 'failed'),
    );
    t.strictSame(
      ids(await store.page({ limit: 100, key_id: 'sk-odd' })),
      only((x) => x.key_id === 'sk-odd'),
    );
    t.strictSame(
      ids(await store.page({ limit: 100, model: 'video-a' })),
      only((x) => x.model === 'video-a'),
    );
    const team = await store.page({ limit: 100, team_id: 'team-three' });
    t.strictSame(
      ids(team),
      only((x) => x.team_id === 'team-three'),
      'by team',
    );
    t.ok(team.length === 9 && team.every((x) => x.team_id === 'team-three'), 'each task keeps its team');
    t.notOk(
      (await store.page({ limit: 100, key_id: 'sk-odd' })).some((x) => x.id.endsWith('01') && 'team_id' in x),
      'a task without a team has no team_id',
    );
    const cursor = { created_at: newest[4]!.created_at, id: newest[4]!.id };
    t.strictSame(
      ids(await store.page({ limit: 100, status: 'queued', model: 'video-b', after: cursor })),
      only((x) => x.status === 'queued' && x.model === 'video-b' && newest.indexOf(x) > 4),
      'filters combine, with a cursor',
    );
    t.strictSame(await store.page({ limit: 10, model: 'none' }), [], 'no match: an empty page');
  });

  t.test('concurrent acquirers of one task: exactly one wins', async (t) => {
    const store = await (await makeStore(t))();
    const task = newTask();
    await store.insert(task, T0);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.acquire(task.id, { owner: `poller-${i}`, until: T0 + MINUTE }, T0),
      ),
    );
    const winners = results.filter((r) => r !== undefined);
    t.equal(winners.length, 1, 'one acquire got the lease');
    t.equal(
      (await store.get(task.id))?.lease?.owner,
      winners[0]?.lease?.owner,
      'and the store says it is that one',
    );
  });

  t.test('acquire onlyIfDue: only a task whose next poll is due at now', async (t) => {
    const store = await (await makeStore(t))();
    const task = newTask({ next_poll_at: T0 + 1000 });
    await store.insert(task, T0);
    const lease = { owner: 'p1', until: T0 + MINUTE };
    t.equal(await store.acquire(task.id, lease, T0 + 999, { onlyIfDue: true }), undefined, 'not before');
    t.equal((await store.get(task.id))?.lease, null, 'and nothing changed');
    const leased = await store.acquire(task.id, { ...lease, until: T0 + 1000 + MINUTE }, T0 + 1000, {
      onlyIfDue: true,
    });
    t.equal(leased?.lease?.owner, 'p1', 'from the moment it is due');
    const polled = await store.update(task.id, 'p1', { next_poll_at: T0 + 5000, lease: null }, T0 + 1001);
    t.ok(polled, 'polled, and its next poll moved on');
    t.equal(
      await store.acquire(task.id, { owner: 'p2', until: T0 + 2 * MINUTE }, T0 + 1002, { onlyIfDue: true }),
      undefined,
      'a turn queued before that poll is refused, though the lease is free',
    );
    t.ok(await store.acquire(task.id, lease, T0 + 1002), 'without onlyIfDue, a free lease is enough');
  });

  t.test(
    'leases on the store clock: the caller clock cannot end one early',
    { skip: callerClock },
    async (t) => {
      const store = await (await makeStore(t))();
      const task = newTask();
      await store.insert(task, T0);
      // Seconds: the two checks that it is live must reach the store before it runs out, on a loaded
      // machine too. Then another caller asks (a refused acquire changes nothing) until it gets it.
      const started = performance.now();
      t.ok(await store.acquire(task.id, { owner: 'p1', until: T0 + STORE_LEASE_MS }, T0), 'leased for 3 s');
      t.equal(
        await store.acquire(task.id, { owner: 'p2', until: T0 + 10 * MINUTE }, T0 + 5 * MINUTE),
        undefined,
        'a caller whose clock runs ahead still sees it live',
      );
      t.ok(await store.update(task.id, 'p1', { polls: 1 }, T0 + 5 * MINUTE), 'and so does its holder');
      const taken = await until(
        () => store.acquire(task.id, { owner: 'p2', until: T0 + MINUTE }, T0),
        (got) => got !== undefined,
        { what: "the lease to run out on the store's clock" },
      );
      t.equal(
        taken?.lease?.owner,
        'p2',
        'once it ran out on the store clock, another takes it, whatever its own clock says',
      );
      t.ok(performance.now() - started >= STORE_LEASE_MS, 'and not before');
    },
  );

  t.test('due: tasks needing work, due, with no live lease, earliest first, limited', async (t) => {
    const store = await (await makeStore(t))();
    const now = T0 + 10 * MINUTE;
    const tasks: Record<string, VideoTask> = {
      d1: newTask({ next_poll_at: now - 3000 }),
      d2: newTask({ status: 'running', next_poll_at: now - 1000 }),
      d3: newTask({ status: 'succeeded', billed: false, next_poll_at: now - 2000 }),
      d4: newTask({ next_poll_at: now - 500, lease: { owner: 'gone', until: now } }),
      d5: newTask({ next_poll_at: now }),
      later: newTask({ next_poll_at: now + 1 }),
      billed: newTask({ status: 'succeeded', billed: true, next_poll_at: now - 5000 }),
      failed: newTask({ status: 'failed', next_poll_at: now - 5000 }),
      cancelled: newTask({ status: 'cancelled', next_poll_at: now - 5000 }),
      leased: newTask({
        next_poll_at: now - 4000,
        lease: { owner: 'busy', until: callerClock ? now + 1 : Date.now() + MINUTE },
      }),
    };
    for (const task of Object.values(tasks)) await store.insert(task, T0);
    const ids = (list: VideoTask[]) => list.map((task) => task.id);
    const name = (id: string) => Object.keys(tasks).find((k) => tasks[k]?.id === id);
    t.strictSame(
      (await store.due(now, 10)).map((task) => name(task.id)),
      ['d1', 'd3', 'd2', 'd4', 'd5'],
      'due, in order',
    );
    t.strictSame(ids(await store.due(now, 2)), [tasks.d1?.id, tasks.d3?.id], 'limited to the earliest');
    t.strictSame(await store.due(now, 0), [], 'a limit of 0 gives none');
    t.strictSame((await store.due(now, 10))[1], tasks.d3, 'whole tasks');
    t.strictSame(ids(await store.due(now - 3000, 10)), [tasks.d1?.id], 'nothing before its time');
  });

  t.test('watch: inserts and changes reach the listener, in order, until stopped', async (t) => {
    const store = await (await makeStore(t))();
    const seen: VideoTask[] = [];
    const alsoSeen: VideoTask[] = [];
    const stop = store.watch((task) => seen.push(task));
    const stopOther = store.watch((task) => alsoSeen.push(task));

    const a = newTask();
    const b = newTask();
    await store.insert(a, T0);
    await store.acquire(a.id, { owner: 'p1', until: T0 + MINUTE }, T0 + 1);
    await store.update(a.id, 'p1', { status: 'running' }, T0 + 2);
    await store.update(a.id, 'p1', { status: 'succeeded', video_url: 'https://v/3' }, T0 + 3);
    await store.insert(b, T0);
    await eventually(() => seen.some((task) => task.id === b.id), 10_000, 'the second insert');

    const ofA = seen.filter((task) => task.id === a.id);
    t.equal(ofA.length, 4, 'one call per change: insert, acquire, two updates');
    t.strictSame(ofA[0], a, 'the insert, as inserted');
    const ranks = ofA.map((task) => STATUS_RANK[task.status]);
    t.strictSame(
      ranks,
      [...ranks].sort((x, y) => x - y),
      'statuses arrive in order',
    );
    t.match(
      ofA.at(-1),
      { status: 'succeeded', video_url: 'https://v/3', lease: { owner: 'p1' } },
      'the last one is current',
    );
    t.equal(seen.at(-1)?.id, b.id, 'changes of different tasks arrive in the order they were made');

    stop();
    const c = newTask();
    await store.update(a.id, 'p1', { billed: true }, T0 + 4);
    await store.insert(c, T0);
    await eventually(() => alsoSeen.some((task) => task.id === c.id), 10_000, 'the other watcher');
    t.notOk(
      seen.some((task) => task.id === c.id || task.billed),
      'a stopped listener is not called',
    );
    t.equal(alsoSeen.length, 7, 'the other listener saw every change');
    stopOther();
  });

  t.test('countByStatus counts every status, zeros included', async (t) => {
    const store = await (await makeStore(t))();
    t.strictSame(await store.countByStatus(), {
      queued: 0,
      running: 0,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
    });
    for (const status of ['queued', 'queued', 'running', 'succeeded', 'failed'] as const) {
      await store.insert(newTask({ status }), T0);
    }
    t.strictSame(await store.countByStatus(), {
      queued: 2,
      running: 1,
      succeeded: 1,
      failed: 1,
      cancelled: 0,
    });
  });
}
