/**
 * Usage records in a MongoDB collection. `record` only queues, like the embedded store; a timer (or a
 * full batch) writes the queue with one unordered insertMany, so metering adds no round trip to a request.
 * `recordOnce` is one insert against a unique partial index on `id` over the `once` records.
 * `summary` is one aggregation over the `created_at_key_model` index.
 */
import { MongoBulkWriteError, ObjectId, type Collection, type Db, type Filter } from 'mongodb';
import type { Logger } from 'pino';
import { BatchWriter, type BatchOptions } from '../batch-writer';
import { sortSummary } from '../usage-rollup';
import {
  type UsageFilter,
  type UsageRecord,
  type UsageStats,
  type UsageStore,
  type UsageSummaryQuery,
  type UsageSummaryRow,
} from '../usage-store';
import { COLLECTIONS, isDuplicateKey, STORE_COLLECTION_OPTIONS, STORE_INDEXES } from './connect';

/**
 * `_id` is chosen when the record is queued: it orders `list` (queue order within an instance, the
 * second of writing across instances), and it makes a retried batch idempotent (documents an earlier,
 * failed-looking try did write come back as duplicates).
 */
type UsageDoc = UsageRecord & { _id: ObjectId };

export interface MongoUsageOptions extends BatchOptions {
  readonly logger?: Logger;
}

const WITHOUT_ID = { projection: { _id: 0 } } as const;

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

  static async open(
    db: Db,
    options: MongoUsageOptions,
    collectionName: string = COLLECTIONS.usage,
  ): Promise<MongoUsageStore> {
    const usage = db.collection<UsageDoc>(collectionName, STORE_COLLECTION_OPTIONS);
    await usage.createIndexes([...STORE_INDEXES.usage]);
    return new MongoUsageStore(usage, options);
  }

  record(entry: UsageRecord): void {
    this.batches.add({ ...entry, _id: new ObjectId() });
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
      await this.usage.insertOne({ ...entry, once: true, _id: new ObjectId() });
      return true;
    } catch (e) {
      if (isDuplicateKey(e)) return false;
      throw e;
    }
  }

  async list(filter: UsageFilter = {}): Promise<UsageRecord[]> {
    await this.flush();
    const query: Filter<UsageDoc> = {
      ...(filter.id !== undefined ? { id: filter.id } : {}),
      ...(filter.key_id !== undefined ? { key_id: filter.key_id } : {}),
    };
    if (filter.limit === undefined) {
      return this.usage.find<UsageRecord>(query, WITHOUT_ID).sort({ _id: 1 }).toArray();
    }
    // The last `limit` records, returned in insertion order as the embedded store does.
    const last = await this.usage
      .find<UsageRecord>(query, WITHOUT_ID)
      .sort({ _id: -1 })
      .limit(filter.limit)
      .toArray();
    return last.reverse();
  }

  /**
   * Groups by the ISO prefix of `created_at` (13 characters: the hour, 10: the day; records are written
   * with `toISOString`, so prefixes and range bounds compare as strings).
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
      ...(query.models ? { model: { $in: [...query.models] } } : {}),
    };
    const rows = await this.usage
      .aggregate<UsageSummaryRow & { _id: unknown }>([
        ...(Object.keys(match).length ? [{ $match: match }] : []),
        {
          $group: {
            _id: {
              ...(by.has('key') ? { key_id: '$key_id' } : {}),
              ...(by.has('model') ? { model: '$model' } : {}),
              ...(prefix ? { period: { $substrCP: ['$created_at', 0, prefix] } } : {}),
            },
            requests: { $sum: 1 },
            input_tokens: { $sum: '$prompt_tokens' },
            output_tokens: { $sum: '$completion_tokens' },
            cost_micros: { $sum: '$cost_micros' }, // a null (unknown) cost adds nothing
            cost_unknown_requests: { $sum: { $cond: [{ $isNumber: '$cost_micros' }, 0, 1] } },
          },
        },
      ])
      .toArray();
    const suffix = prefix === 10 ? 'T00:00:00.000Z' : ':00:00.000Z';
    return sortSummary(
      rows.map(({ _id, ...totals }) => {
        const group = _id as { key_id?: string | null; model?: string; period?: string };
        return {
          ...(by.has('key') ? { key_id: group.key_id ?? null } : {}),
          ...(by.has('model') ? { model: group.model ?? '' } : {}),
          ...(prefix ? { period: `${group.period ?? ''}${suffix}` } : {}),
          requests: totals.requests,
          input_tokens: totals.input_tokens,
          output_tokens: totals.output_tokens,
          cost_micros: totals.cost_micros,
          cost_unknown_requests: totals.cost_unknown_requests,
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
