/**
 * Batch line results in a MongoDB collection (`batch_lines`), one document per line, unique by
 * `{batch_id, index}` (store-indexes.ts): the first insert of a line wins on any instance, a later one
 * is a duplicate key. The body is kept as JSON text: an upstream's body may hold keys MongoDB treats
 * specially (`$`-prefixed, dotted), and the text comes back exactly as it went in.
 */
import type { Collection, Db } from 'mongodb';
import type { JsonObject } from '../../base/json';
import type { BatchLineResult, BatchLineStore } from '../batch-line-store';
import { COLLECTIONS, isDuplicateKey, STORE_COLLECTION_OPTIONS, type MongoStoreOptions } from './connect';

type LineDoc = Omit<BatchLineResult, 'body'> & { readonly batch_id: string; readonly body: string | null };

const WITHOUT_STORE_FIELDS = { projection: { _id: 0, batch_id: 0 } } as const;

const fromDoc = ({ body, ...rest }: Omit<LineDoc, 'batch_id'>): BatchLineResult => ({
  ...rest,
  body: body === null ? null : (JSON.parse(body) as JsonObject),
});

export class MongoBatchLineStore implements BatchLineStore {
  private constructor(private readonly lines: Collection<LineDoc>) {}

  static open(db: Db, options: MongoStoreOptions = {}): MongoBatchLineStore {
    const name = options.collection ?? COLLECTIONS.batch_lines;
    return new MongoBatchLineStore(db.collection<LineDoc>(name, STORE_COLLECTION_OPTIONS));
  }

  /** An insert: a duplicate key means the line has its result already. */
  async put(batchId: string, result: BatchLineResult): Promise<boolean> {
    const body = result.body === null ? null : JSON.stringify(result.body);
    try {
      await this.lines.insertOne({ batch_id: batchId, ...result, body });
      return true;
    } catch (e) {
      if (isDuplicateKey(e)) return false;
      throw e;
    }
  }

  async list(batchId: string): Promise<BatchLineResult[]> {
    const docs = await this.lines
      .find<Omit<LineDoc, 'batch_id'>>({ batch_id: batchId }, WITHOUT_STORE_FIELDS)
      .sort({ index: 1 })
      .toArray();
    return docs.map(fromDoc);
  }

  count(batchId: string): Promise<number> {
    return this.lines.countDocuments({ batch_id: batchId });
  }

  async drop(batchId: string): Promise<void> {
    await this.lines.deleteMany({ batch_id: batchId });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
