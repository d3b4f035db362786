/**
 * Video tasks in a MongoDB collection, `_id` = task id. Every condition of the TaskStore contract is part
 * of the write's own filter (or a unique index), so any number of pollers on any number of instances can
 * share the collection: the database decides who wins, never a read followed by a write. Leases are
 * timed on the server's clock (`$$NOW`, MongoDB 4.2+), so the hosts' clocks need not agree.
 */
import { type Collection, type Db, type Document, type Filter } from 'mongodb';
import pino, { type Logger } from 'pino';
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
} from '../video-task';
import {
  ANY_KIND,
  IdempotencyKeyTaken,
  type AcquireOptions,
  type TaskPageQuery,
  type TaskStore,
} from '../task-store';
import { COLLECTIONS, isDuplicateKey, STORE_COLLECTION_OPTIONS, type MongoStoreOptions } from './connect';
import { LastingChangeStream } from './lasting-change-stream';

/** `done_on`: when the task came to need no more work, as a BSON date for the retention's TTL index. */
type TaskDoc = Omit<StoredTask, 'id'> & { _id: string; done_on?: Date };

const toDoc = ({ id, ...rest }: VideoTask): TaskDoc => ({ _id: id, ...rest });
const fromDoc = ({ _id, done_on, ...rest }: TaskDoc): VideoTask => {
  void done_on; // the store's own, not the task's
  return normalizeTask({ id: _id, ...rest });
};

/** The document (as changed) needs no more work: terminal, and billed if it succeeded. */
const NO_WORK_LEFT = {
  $and: [
    { $in: ['$status', TASK_STATUSES.filter(isTerminal)] },
    { $or: [{ $ne: ['$status', 'succeeded'] }, { $eq: ['$billed', true] }] },
  ],
};

/**
 * Run after the change's own stage, so it reads the changed document: `done_on` is set (on the server's
 * clock) when no work is left, kept from then on, and removed if work comes back (it cannot today).
 */
const DONE_STAGE: Document = {
  $set: { done_on: { $cond: [NO_WORK_LEFT, { $ifNull: ['$done_on', '$$NOW'] }, '$$REMOVE'] } },
};

/**
 * `update` as pipeline stages, so the history is appended in the same write: every expression in a
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
  return [{ $set: set }, DONE_STAGE];
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

export class MongoTaskStore implements TaskStore {
  /** The live watches' streams: writes wait until they are open (see `watch`), `close` stops them. */
  private readonly streams = new Set<LastingChangeStream<TaskDoc>>();

  private constructor(
    private readonly tasks: Collection<TaskDoc>,
    private readonly logger: Logger,
  ) {}

  /** Over the collection as it is: its indexes are built by the deploy step (store-indexes.ts). */
  static open(db: Db, options: MongoStoreOptions = {}): MongoTaskStore {
    const tasks = db.collection<TaskDoc>(options.collection ?? COLLECTIONS.tasks, STORE_COLLECTION_OPTIONS);
    return new MongoTaskStore(tasks, options.logger ?? pino({ level: 'silent' }));
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

  async requestCancel(id: string, now: number): Promise<VideoTask | undefined> {
    await this.watchesOpen();
    const doc = await this.tasks.findOneAndUpdate(
      { $and: [{ _id: id }, NEEDS_WORK] },
      [
        {
          $set: {
            cancel_requested_at: { $ifNull: ['$cancel_requested_at', now] },
            next_poll_at: { $min: ['$next_poll_at', now] },
            updated_at: now,
          },
        },
      ],
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
    const { after, status, key_id, team_id, model, kind } = query;
    const filter: Filter<TaskDoc> = {
      ...(kind === ANY_KIND ? {} : { kind: kind ?? { $exists: false } }),
      ...(status !== undefined ? { status } : {}),
      ...(key_id !== undefined ? { key_id } : {}),
      ...(team_id !== undefined ? { team_id } : {}),
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
   * A change stream of inserts and updates, each delivered with the task as stored, kept open however it
   * ends (LastingChangeStream). Writes through this store wait until the streams are open, so a listener
   * sees every change made after `watch` returned, as with the embedded store; changes by other
   * instances in that first moment are for the poller's sweep.
   */
  watch(listener: (task: VideoTask) => void): () => void {
    const stream = new LastingChangeStream<TaskDoc>(this.tasks, {
      // `invalidate` passes so its token is the one to start after (a dropped or renamed collection).
      pipeline: [{ $match: { operationType: { $in: ['insert', 'update', 'invalidate'] } } }],
      fullDocument: 'updateLookup',
      onChange: (change) => {
        if ((change.operationType === 'insert' || change.operationType === 'update') && change.fullDocument) {
          listener(fromDoc(change.fullDocument));
        }
      },
      logger: this.logger,
      name: `${this.tasks.collectionName} tasks`,
    });
    this.streams.add(stream);
    return () => {
      this.streams.delete(stream);
      void stream.stop();
    };
  }

  /** A count per status, each read from the status-prefixed index alone (no document is fetched). */
  async countByStatus(): Promise<Record<TaskStatus, number>> {
    const counts = await Promise.all(
      TASK_STATUSES.map((status) => this.tasks.countDocuments({ status, kind: { $exists: false } })),
    );
    return Object.fromEntries(TASK_STATUSES.map((s, i) => [s, counts[i]])) as Record<TaskStatus, number>;
  }

  /** Closes the change streams; the client belongs to whoever connected it. */
  async close(): Promise<void> {
    const streams = [...this.streams];
    this.streams.clear();
    await Promise.all(streams.map((stream) => stream.stop()));
  }

  private async watchesOpen(): Promise<void> {
    if (this.streams.size > 0) await Promise.all([...this.streams].map((stream) => stream.opened()));
  }
}
