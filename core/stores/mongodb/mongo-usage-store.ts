/**
 * Usage records in a MongoDB collection. `record` only queues, like the embedded store; a timer (or a
 * full batch) writes the queue with one unordered insertMany, so metering adds no round trip to a request.
 * `recordOnce` is one insert against a unique partial index on `id` over the `once` records.
 * `summary` is one aggregation over the `created_at_key_model` index (`team_created_at` for some teams').
 */
import { MongoBulkWriteError, ObjectId, type Collection, type Db, type Filter } from 'mongodb';
import { BatchWriter, type BatchOptions } from '../batch-writer';
import { writeHealth, type StoreHealth } from '../store-health';
import { sortSummary } from '../usage-rollup';
import {
  type UsageFilter,
  type UsageRecord,
  type UsageStats,
  type UsageStore,
  type UsageSummaryQuery,
  type UsageSummaryRow,
} from '../usage-store';
import { COLLECTIONS, isDuplicateKey, STORE_COLLECTION_OPTIONS, type MongoStoreOptions } from './connect';

/**
 * `_id` is chosen when the record is queued: it orders `list` (queue order within an instance, the
 * second of writing across instances), and it makes a retried batch idempotent (documents an earlier,
 * failed-looking try did write come back as duplicates).
 */
type UsageDoc = UsageRecord & { _id: ObjectId; created_on: Date };

export interface MongoUsageOptions extends BatchOptions, MongoStoreOptions {}

/** Records are read as they were recorded: without `_id` and the retention's `created_on`. */
const AS_RECORDED = { projection: { _id: 0, created_on: 0 } } as const;

/**
 * A record as stored. `created_on` is `created_at` as a BSON date, which a TTL index needs (the record's
 * own time stays the ISO string the summaries compare).
 */
const toDoc = (entry: UsageRecord): UsageDoc => ({
  ...entry,
  _id: new ObjectId(),
  created_on: new Date(entry.created_at),
});

/** An unordered insertMany whose only failures are duplicates (of `_id`s an earlier try wrote), fully acknowledged. */
function onlyDuplicates(e: unknown): boolean {
  if (!(e instanceof MongoBulkWriteError) || e.result.getWriteConcernError()) return false;
  const errors = [e.writeErrors].flat();
  return errors.length > 0 && errors.every((w) => w.code === 11000);
}

export class MongoUsageStore implements UsageStore {
  private readonly batches: BatchWriter<UsageDoc>;

  private constructor(
    private readonly usage: Collection<UsageDoc>,
    options: MongoUsageOptions,
  ) {
    this.batches = new BatchWriter((batch) => this.write(batch), options, options.logger, 'usage records');
  }

  /** Over the collection as it is: its indexes are built by the deploy step (store-indexes.ts). */
  static open(db: Db, options: MongoUsageOptions): MongoUsageStore {
    const usage = db.collection<UsageDoc>(options.collection ?? COLLECTIONS.usage, STORE_COLLECTION_OPTIONS);
    return new MongoUsageStore(usage, options);
  }

  record(entry: UsageRecord): void {
    this.batches.add(toDoc(entry));
  }

  accepting(): boolean {
    return this.batches.accepting;
  }

  stats(): UsageStats {
    return this.batches.stats();
  }

  flush(): Promise<void> {
    return this.batches.flush();
  }

  /** Failing from a failed batch insert until one succeeds (the writer retries by itself). */
  health(): StoreHealth {
    return writeHealth('usage records', this.batches.failure());
  }

  /** A retried batch may meet documents an earlier, failed-looking try wrote: their `_id`s make that a no-op. */
  private async write(batch: UsageDoc[]): Promise<void> {
    try {
      await this.usage.insertMany(batch, { ordered: false });
    } catch (e) {
      if (!onlyDuplicates(e)) throw e;
    }
  }

  async recordOnce(entry: UsageRecord): Promise<boolean> {
    try {
      // Acknowledged with majority and journal (STORE_COLLECTION_OPTIONS): durable once it resolves.
      await this.usage.insertOne({ ...toDoc(entry), once: true });
      return true;
    } catch (e) {
      if (isDuplicateKey(e)) return false;
      throw e;
    }
  }

  /**
   * Model and endpoint have no index of their own (adding one would fail the start-up check of every
   * deployment until its indexes are rebuilt): with a key they ride on `key_then_order`, else the latest
   * records are read back along `_id` until `limit` of them match, a look at recent calls, not a report.
   */
  async list(filter: UsageFilter = {}): Promise<UsageRecord[]> {
    await this.flush();
    const query: Filter<UsageDoc> = {
      ...(filter.id !== undefined ? { id: filter.id } : {}),
      ...(filter.key_id !== undefined ? { key_id: filter.key_id } : {}),
      ...(filter.team_id !== undefined ? { team_id: filter.team_id } : {}),
      ...(filter.model !== undefined ? { model: filter.model } : {}),
      ...(filter.endpoint !== undefined ? { endpoint: filter.endpoint } : {}),
    };
    if (filter.limit === undefined) {
      return this.usage.find<UsageRecord>(query, AS_RECORDED).sort({ _id: 1 }).toArray();
    }
    // The last `limit` records, returned in insertion order as the embedded store does.
    const last = await this.usage
      .find<UsageRecord>(query, AS_RECORDED)
      .sort({ _id: -1 })
      .limit(filter.limit)
      .toArray();
    return last.reverse();
  }

  /**
   * Groups by the ISO prefix of `created_at` (13 characters: the hour, 10: the day; records are written
   * with `toISOString`, so prefixes and range bounds compare as strings). The endpoint, like the token
   * counts, is read from the documents the range's index entries point to: adding it to the index
   * would change a definition every deployment has built, and save no fetch.
   */
  async summary(query: UsageSummaryQuery): Promise<UsageSummaryRow[]> {
    await this.flush();
    const by = new Set(query.group_by);
    const range: Record<string, string> = {};
    if (query.from !== undefined) range.$gte = new Date(query.from).toISOString();
    if (query.to !== undefined) range.$lt = new Date(query.to).toISOString();
    const prefix = by.has('day') ? 10 : by.has('hour') ? 13 : 0;
    const match: Filter<UsageDoc> = {
      ...(Object.keys(range).length ? { created_at: range } : {}),
      ...(query.key_ids ? { key_id: { $in: [...query.key_ids] } } : {}),
      ...(query.team_ids ? { team_id: { $in: [...query.team_ids] } } : {}),
      ...(query.models ? { model: { $in: [...query.models] } } : {}),
      ...(query.endpoints ? { endpoint: { $in: [...query.endpoints] } } : {}),
    };
    const rows = await this.usage
      .aggregate<UsageSummaryRow & { _id: unknown }>([
        ...(Object.keys(match).length ? [{ $match: match }] : []),
        {
          $group: {
            _id: {
              ...(by.has('key') ? { key_id: '$key_id' } : {}),
              ...(by.has('team') ? { team_id: '$team_id' } : {}),
              ...(by.has('model') ? { model: '$model' } : {}),
              ...(by.has('endpoint') ? { endpoint: '$endpoint' } : {}),
              ...(prefix ? { period: { $substrCP: ['$created_at', 0, prefix] } } : {}),
            },
            requests: { $sum: 1 },
            input_tokens: { $sum: '$prompt_tokens' },
            output_tokens: { $sum: '$completion_tokens' },
            cost_micros: { $sum: '$cost_micros' }, // a null (unknown) cost adds nothing
            cost_unknown_requests: { $sum: { $cond: [{ $isNumber: '$cost_micros' }, 0, 1] } },
            // Set on a cache's hit only: absent (every other record) and null (unpriced) add nothing.
            saved_micros: { $sum: '$saved_micros' },
            batch_requests: { $sum: { $cond: [{ $ifNull: ['$batch_id', false] }, 1, 0] } },
            batch_cost_micros: { $sum: { $cond: [{ $ifNull: ['$batch_id', false] }, '$cost_micros', 0] } },
          },
        },
      ])
      .toArray();
    const suffix = prefix === 10 ? 'T00:00:00.000Z' : ':00:00.000Z';
    return sortSummary(
      rows.map(({ _id, ...totals }) => {
        const group = _id as {
          key_id?: string | null;
          team_id?: string | null;
          model?: string;
          endpoint?: string;
          period?: string;
        };
        return {
          ...(by.has('key') ? { key_id: group.key_id ?? null } : {}),
          ...(by.has('team') ? { team_id: group.team_id ?? null } : {}),
          ...(by.has('model') ? { model: group.model ?? '' } : {}),
          ...(by.has('endpoint') ? { endpoint: group.endpoint ?? '' } : {}),
          ...(prefix ? { period: `${group.period ?? ''}${suffix}` } : {}),
          requests: totals.requests,
          input_tokens: totals.input_tokens,
          output_tokens: totals.output_tokens,
          cost_micros: totals.cost_micros,
          cost_unknown_requests: totals.cost_unknown_requests,
          saved_micros: totals.saved_micros,
          batch_requests: totals.batch_requests,
          batch_cost_micros: totals.batch_cost_micros,
        };
      }),
    );
  }

  /** One indexed read per key (`key_then_order`): its last inserted record. */
  async lastUsed(keyIds: readonly string[]): Promise<Map<string, string>> {
    await this.flush();
    const found = new Map<string, string>();
    await Promise.all(
      keyIds.map(async (key_id) => {
        const last = await this.usage.findOne<Pick<UsageRecord, 'created_at'>>(
          { key_id },
          { sort: { _id: -1 }, projection: { _id: 0, created_at: 1 } },
        );
        if (last) found.set(key_id, last.created_at);
      }),
    );
    return found;
  }

  /** Writes what is queued (retrying for up to `waitMs`); the client belongs to whoever connected it. */
  async close(waitMs = 0): Promise<void> {
    await this.batches.close(waitMs);
  }
}
