/**
 * Video tasks in a MongoDB collection, `_id` = task id. Every condition of the TaskStore contract is part
 * of the write's own filter (or a unique index), so any number of pollers on any number of instances can
 * share the collection: the database decides who wins, never a read followed by a write. Leases are
 * timed on the server's clock (`$$NOW`, MongoDB 4.2+), so the hosts' clocks need not agree.
 */
import {
  MongoServerError,
  type ChangeStream,
  type ChangeStreamInsertDocument,
  type ChangeStreamUpdateDocument,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type ResumeToken,
} from 'mongodb';
import {
  canMove,
  isTerminal,
  normalizeTask,
  TASK_STATUSES,
  type Lease,
  type StoredTask,
  type TaskChange,
  type TaskStatus,
  type VideoTask,
} from '../../tasks/task';
import { IdempotencyKeyTaken, type AcquireOptions, type TaskPageQuery, type TaskStore } from '../task-store';
import { COLLECTIONS, isDuplicateKey, STORE_COLLECTION_OPTIONS, STORE_INDEXES } from './connect';

type TaskDoc = Omit<StoredTask, 'id'> & { _id: string };
type TaskEvent = ChangeStreamInsertDocument<TaskDoc> | ChangeStreamUpdateDocument<TaskDoc>;

const toDoc = ({ id, ...rest }: VideoTask): TaskDoc => ({ _id: id, ...rest });
const fromDoc = ({ _id, ...rest }: TaskDoc): VideoTask => normalizeTask({ id: _id, ...rest });

/**
 * `update` as one pipeline stage, so the history is appended in the same write: every expression in a
 * `$set` stage reads the document as it was, so `$status` is the old status (as in `nextHistory`). The
 * changed values are literals, never read as expressions.
 */
function changeStage(change: TaskChange, now: number): Document[] {
  const set: Document = { updated_at: { $literal: now } };
  for (const [field, value] of Object.entries(change)) {
    if (value !== undefined) set[field] = { $literal: value }; // undefined fields are left out, as with $set
  }
  if (change.status !== undefined) {
    // A task stored before histories existed starts its history from its creation.
    const history = { $ifNull: ['$history', [{ status: 'queued', at: '$created_at' }]] };
    set.history = {
      $cond: [
        { $ne: ['$status', change.status] },
        { $concatArrays: [history, { $literal: [{ status: change.status, at: now }] }] },
        history,
      ],
    };
  }
  return [{ $set: set }];
}

/** `needsWork` as a filter: not terminal, or succeeded and not yet billed. */
const NEEDS_WORK: Filter<TaskDoc> = {
  $or: [
    { status: { $in: TASK_STATUSES.filter((s) => !isTerminal(s)) } },
    { status: 'succeeded', billed: false },
  ],
};

/**
 * The server's present in Unix ms. Leases are judged on it, not on the caller's clock: hosts whose clocks
 * disagree would otherwise each see the other's lease as run out. (`$$NOW` is a date; stored times are
 * numbers, and BSON orders every number before every date, so it is converted.)
 */
const SERVER_NOW = { $toLong: '$$NOW' };

/** No lease, or one that has run out on the server's clock (a lease is live while `until` is later). */
const LEASE_FREE: Filter<TaskDoc> = {
  $or: [{ lease: null }, { $expr: { $lte: ['$lease.until', SERVER_NOW] } }],
};

/** The lease held by `owner` and still live on the server's clock. */
const leaseHeldBy = (owner: string): Filter<TaskDoc> => ({
  'lease.owner': owner,
  $expr: { $gt: ['$lease.until', SERVER_NOW] },
});

/** Takes the lease for as long as the caller asked, counted from the server's present. */
const leaseStage = (lease: Lease, now: number): Document[] => [
  {
    $set: {
      lease: { owner: { $literal: lease.owner }, until: { $add: [SERVER_NOW, lease.until - now] } },
      updated_at: { $literal: now },
    },
  },
];

/** The statuses a task may be in for a change to `to` to apply: never backwards. */
const movableTo = (to: TaskStatus): TaskStatus[] => TASK_STATUSES.filter((from) => canMove(from, to));

/**
 * For reads after a duplicate-key error: the error reflects the primary's state, and the document that
 * caused it may be too new to be majority-committed, so it is read as the primary has it.
 */
const AS_PRIMARY_HAS_IT = { readConcern: { level: 'local' }, readPreference: 'primary' } as const;

/** How long a failed change stream waits before it is reopened (a server that is down fails at once). */
const REOPEN_DELAY_MS = 1_000;
/** The server no longer has the resume token's point in its oplog: start from now (the sweep covers the gap). */
const CHANGE_STREAM_HISTORY_LOST = 286;

export class MongoTaskStore implements TaskStore {
  /** Stops of the live watches, for `close`. */
  private readonly watches = new Set<() => Promise<void>>();
  /** Change streams not yet open: writes wait for them (see `watch`). */
  private readonly opening = new Set<Promise<void>>();

  private constructor(private readonly tasks: Collection<TaskDoc>) {}

  static async open(db: Db, collectionName: string = COLLECTIONS.tasks): Promise<MongoTaskStore> {
    const tasks = db.collection<TaskDoc>(collectionName, STORE_COLLECTION_OPTIONS);
    await tasks.createIndexes([...STORE_INDEXES.tasks]);
    return new MongoTaskStore(tasks);
  }

  async insert(task: VideoTask, idempotentSince: number): Promise<void> {
    await this.watchesOpen();
    // Two tries: the first may find the idempotency key held by a task older than the window, released here.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.tasks.insertOne(toDoc(task));
        return;
      } catch (e) {
        if (!isDuplicateKey(e)) throw e;
        if (await this.tasks.countDocuments({ _id: task.id }, { ...AS_PRIMARY_HAS_IT, limit: 1 })) {
          throw new Error(`task ${task.id} exists`);
        }
        const key = task.idempotency?.key;
        const holder =
          key === undefined
            ? null
            : await this.tasks.findOne({ key_id: task.key_id, 'idempotency.key': key }, AS_PRIMARY_HAS_IT);
        if (!holder && attempt < 2) continue; // released in the meantime
        if (!holder) throw e;
        if (holder.created_at >= idempotentSince || attempt >= 2)
          throw new IdempotencyKeyTaken(fromDoc(holder));
        // Released only if that same task still holds the key: another instance may have got here first.
        // Null rather than $unset: the document stays a whole VideoTask, and the partial index skips it.
        await this.tasks.updateOne(
          { _id: holder._id, 'idempotency.key': key },
          { $set: { idempotency: null } },
        );
      }
    }
  }

  async get(id: string): Promise<VideoTask | undefined> {
    const doc = await this.tasks.findOne({ _id: id });
    return doc ? fromDoc(doc) : undefined;
  }

  async acquire(
    id: string,
    lease: Lease,
    now: number,
    options: AcquireOptions = {},
  ): Promise<VideoTask | undefined> {
    await this.watchesOpen();
    const doc = await this.tasks.findOneAndUpdate(
      {
        _id: id,
        $and: [
          NEEDS_WORK,
          { $or: [LEASE_FREE, { 'lease.owner': lease.owner }] },
          // `next_poll_at` was set on a caller's clock, so it is compared on one.
          ...(options.onlyIfDue ? [{ next_poll_at: { $lte: now } }] : []),
        ],
      },
      leaseStage(lease, now),
      { returnDocument: 'after' },
    );
    return doc ? fromDoc(doc) : undefined;
  }

  async update(id: string, owner: string, change: TaskChange, now: number): Promise<VideoTask | undefined> {
    await this.watchesOpen();
    const doc = await this.tasks.findOneAndUpdate(
      {
        _id: id,
        ...leaseHeldBy(owner),
        ...(change.status ? { status: { $in: movableTo(change.status) } } : {}),
      },
      changeStage(change, now),
      { returnDocument: 'after' },
    );
    return doc ? fromDoc(doc) : undefined;
  }

  async settleSubmit(id: string, change: TaskChange, now: number): Promise<VideoTask | undefined> {
    await this.watchesOpen();
    const doc = await this.tasks.findOneAndUpdate(
      {
        $and: [
          { _id: id, upstream_task_id: null },
          NEEDS_WORK,
          ...(change.status ? [{ status: { $in: movableTo(change.status) } }] : []),
        ],
      },
      changeStage(change, now),
      { returnDocument: 'after' },
    );
    return doc ? fromDoc(doc) : undefined;
  }

  async freeIdempotencyKey(id: string, key: string, now: number): Promise<VideoTask | undefined> {
    await this.watchesOpen();
    const doc = await this.tasks.findOneAndUpdate(
      { _id: id, 'idempotency.key': key, $nor: [NEEDS_WORK] },
      // Null rather than $unset, as in `insert`: the partial index then skips the task.
      { $set: { idempotency: null, updated_at: now } },
      { returnDocument: 'after' },
    );
    return doc ? fromDoc(doc) : undefined;
  }

  async due(now: number, limit: number): Promise<VideoTask[]> {
    if (limit <= 0) return []; // a limit of 0 means "no limit" to MongoDB
    const docs = await this.tasks
      .find({ $and: [NEEDS_WORK, { next_poll_at: { $lte: now } }, LEASE_FREE] })
      .sort({ next_poll_at: 1 })
      .limit(limit)
      .toArray();
    return docs.map(fromDoc);
  }

  async page(query: TaskPageQuery): Promise<VideoTask[]> {
    const { after, status, key_id, model } = query;
    const filter: Filter<TaskDoc> = {
      ...(status !== undefined ? { status } : {}),
      ...(key_id !== undefined ? { key_id } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(after
        ? {
            $or: [
              { created_at: { $lt: after.created_at } },
              { created_at: after.created_at, _id: { $lt: after.id } },
            ],
          }
        : {}),
    };
    if (query.limit <= 0) return []; // a limit of 0 means "no limit" to MongoDB
    const docs = await this.tasks.find(filter).sort({ created_at: -1, _id: -1 }).limit(query.limit).toArray();
    return docs.map(fromDoc);
  }

  /**
   * A change stream of inserts and updates, each delivered with the task as stored. A stream that fails
   * (its own resume, built into the driver, gave up) is reopened after the last resume token it saw.
   * Writes through this store wait until the streams are open, so a listener sees every change made
   * after `watch` returned, as with the embedded store; changes by other instances in that first moment
   * are for the poller's sweep.
   */
  watch(listener: (task: VideoTask) => void): () => void {
    let stream: ChangeStream<TaskDoc, TaskEvent> | undefined;
    let token: ResumeToken; // unknown to the driver's types; undefined until the stream answers
    let reopen: NodeJS.Timeout | undefined;
    let stopped = false;

    const open = (): void => {
      const current = this.tasks.watch<TaskDoc, TaskEvent>(
        [{ $match: { operationType: { $in: ['insert', 'update'] } } }],
        { fullDocument: 'updateLookup', ...(token !== undefined ? { resumeAfter: token } : {}) },
      );
      stream = current;
      // The first resume token arrives with the server's answer to the open.
      const opened = new Promise<void>((resolve) => {
        current.once('resumeTokenChanged', () => resolve());
        current.once('error', () => resolve());
        current.once('close', () => resolve());
      });
      this.opening.add(opened);
      void opened.then(() => this.opening.delete(opened));
      current.on('resumeTokenChanged', (t: ResumeToken) => (token = t ?? token));
      current.on('change', (event) => {
        if (!stopped && event.fullDocument) listener(fromDoc(event.fullDocument));
      });
      current.on('error', (e) => {
        if (e instanceof MongoServerError && e.code === CHANGE_STREAM_HISTORY_LOST) token = undefined;
        current.close().catch(() => undefined);
        if (!stopped) reopen = setTimeout(open, REOPEN_DELAY_MS);
      });
    };

    const stop = async (): Promise<void> => {
      stopped = true;
      clearTimeout(reopen);
      this.watches.delete(stop);
      await stream?.close().catch(() => undefined);
    };
    this.watches.add(stop);
    open();
    return () => void stop();
  }

  async countByStatus(): Promise<Record<TaskStatus, number>> {
    const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
    const groups = this.tasks.aggregate<{ _id: TaskStatus; n: number }>([
      { $group: { _id: '$status', n: { $sum: 1 } } },
    ]);
    for await (const { _id, n } of groups) counts[_id] = n;
    return counts;
  }

  /** Closes the change streams; the client belongs to whoever connected it. */
  async close(): Promise<void> {
    await Promise.all([...this.watches].map((stop) => stop()));
  }

  private async watchesOpen(): Promise<void> {
    if (this.opening.size > 0) await Promise.all(this.opening);
  }
}
