/**
 * Batch files on MongoDB: the metadata in `files` (`_id` = file id, so a taken id is a duplicate key),
 * the content in GridFS (file-contents.ts), since a file may be far above the 16 MB document limit.
 *
 * Expiry: every read filters on `expires_at` at the caller's `now`, so an expired file is gone at once;
 * the TTL index on `expires_on` (the same time as a BSON date) deletes its document within a minute or
 * so, and each instance's purge (at open, then hourly) removes expired content. A put writes the content
 * first with an expiry at most an hour away, then the document, then gives the content the file's own
 * expiry; a delete marks the content expired before deleting the document. So whatever a crash or a
 * lost majority cuts short is finished by the purge, which removes a content's document with it.
 */
import { type Collection, type Db, type Filter, type ObjectId } from 'mongodb';
import pino, { type Logger } from 'pino';
import type { FilePageQuery, FileStore, StoredFile } from '../file-store';
import {
  COLLECTIONS,
  FILE_BUCKET,
  isDuplicateKey,
  STORE_COLLECTION_OPTIONS,
  type MongoStoreOptions,
} from './connect';
import { FileContents } from './file-contents';

type FileDoc = Omit<StoredFile, 'id'> & { _id: string; content_id: ObjectId; expires_on?: Date };

export interface MongoFileStoreOptions extends MongoStoreOptions {
  /** The GridFS bucket of the content (tests use several). */
  readonly bucket?: string;
}

/** How long the content of a put cut short is kept before the purge removes it (and its document). */
const UNFINISHED_PUT_MS = 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;
/** Contents read per round of the purge. */
const PURGE_BATCH = 500;

const fromDoc = ({ _id, content_id, expires_on, ...rest }: FileDoc): StoredFile => {
  void content_id; // the store's own, not the file's
  void expires_on;
  return { id: _id, ...rest };
};

/** Not expired at `now` (null: kept for good). */
const liveAt = (now: number): Filter<FileDoc> => ({
  $or: [{ expires_at: null }, { expires_at: { $gt: now } }],
});

const expiresOn = (file: StoredFile): Date | null =>
  file.expires_at === null ? null : new Date(file.expires_at);

export class MongoFileStore implements FileStore {
  private readonly purger: NodeJS.Timeout;
  private purging: Promise<void> | undefined;

  private constructor(
    private readonly files: Collection<FileDoc>,
    private readonly contents: FileContents,
    private readonly logger: Logger,
  ) {
    this.purger = setInterval(() => this.purgeInBackground(), PURGE_EVERY_MS).unref();
    this.purgeInBackground();
  }

  /** Over the collections as they are: their indexes are built by the deploy step (store-indexes.ts). */
  static open(db: Db, options: MongoFileStoreOptions = {}): MongoFileStore {
    const files = db.collection<FileDoc>(options.collection ?? COLLECTIONS.files, STORE_COLLECTION_OPTIONS);
    const contents = FileContents.open(db, options.bucket ?? FILE_BUCKET);
    return new MongoFileStore(files, contents, options.logger ?? pino({ level: 'silent' }));
  }

  async put(file: StoredFile, content: Buffer): Promise<void> {
    const unfinished = new Date(Math.min(file.expires_at ?? Infinity, Date.now() + UNFINISHED_PUT_MS));
    const contentId = await this.contents.write(file.id, content, unfinished);
    const { id, ...rest } = file;
    const keptUntil = expiresOn(file);
    try {
      await this.files.insertOne({
        _id: id,
        ...rest,
        content_id: contentId,
        ...(keptUntil ? { expires_on: keptUntil } : {}),
      });
    } catch (e) {
      if (!isDuplicateKey(e)) return this.takeBack(id, contentId, e);
      await this.contents.remove(contentId).catch(() => undefined); // else the purge removes it
      throw new Error(`file ${id} exists`);
    }
    await this.contents.expireAt(contentId, keptUntil).catch((e: unknown) => this.takeBack(id, contentId, e));
  }

  async get(id: string, now: number): Promise<StoredFile | undefined> {
    const doc = await this.files.findOne({ _id: id, ...liveAt(now) });
    return doc ? fromDoc(doc) : undefined;
  }

  async content(id: string, now: number): Promise<Buffer | undefined> {
    const doc = await this.files.findOne({ _id: id, ...liveAt(now) }, { projection: { content_id: 1 } });
    if (!doc) return undefined;
    try {
      return await this.contents.read(doc.content_id);
    } catch (e) {
      if (await this.get(id, now)) throw e;
      return undefined; // deleted or expired while it was read
    }
  }

  /** An `after` that is not a file of the key visible now (deleted, expired) gives an empty page. */
  async page(query: FilePageQuery, now: number): Promise<StoredFile[]> {
    const { key_id, purpose, after, limit } = query;
    if (limit <= 0) return []; // a limit of 0 means "no limit" to MongoDB
    const conditions: Filter<FileDoc>[] = [{ key_id, ...(purpose ? { purpose } : {}) }, liveAt(now)];
    if (after !== undefined) {
      const from = await this.files.findOne(
        { _id: after, key_id, ...liveAt(now) },
        { projection: { created_at: 1 } },
      );
      if (!from) return [];
      conditions.push({
        $or: [{ created_at: { $lt: from.created_at } }, { created_at: from.created_at, _id: { $lt: after } }],
      });
    }
    const docs = await this.files
      .find({ $and: conditions })
      .sort({ created_at: -1, _id: -1 })
      .limit(limit)
      .toArray();
    return docs.map(fromDoc);
  }

  async delete(id: string, now: number): Promise<boolean> {
    const doc = await this.files.findOne({ _id: id, ...liveAt(now) }, { projection: { content_id: 1 } });
    if (!doc) return false;
    // Marked first: a delete cut short after this is finished by the purge, the document included.
    await this.contents.expireAt(doc.content_id, new Date(now));
    const { deletedCount } = await this.files.deleteOne({
      _id: id,
      content_id: doc.content_id,
      ...liveAt(now),
    });
    if (deletedCount === 0) return false; // another delete won, or it expired meanwhile
    await this.contents.remove(doc.content_id).catch(() => undefined); // else the purge removes it
    return true;
  }

  /** Removes the content expired at `now`, and each one's document if still there. Idempotent. */
  async purge(now: number): Promise<number> {
    let purged = 0;
    for (;;) {
      const expired = await this.contents.expired(new Date(now), PURGE_BATCH);
      for (const { id, fileId } of expired) {
        await this.files.deleteOne({ _id: fileId, content_id: id });
        await this.contents.remove(id);
      }
      purged += expired.length;
      if (expired.length < PURGE_BATCH) return purged;
    }
  }

  /** Waits for a purge under way; the client belongs to whoever connected it. */
  async close(): Promise<void> {
    clearInterval(this.purger);
    await this.purging;
  }

  private purgeInBackground(): void {
    this.purging ??= this.purge(Date.now())
      .then(
        () => undefined,
        (e: unknown) =>
          this.logger.warn({ err: e }, 'expired batch files not purged; tried again in an hour'),
      )
      .finally(() => {
        this.purging = undefined;
      });
  }

  /**
   * A put that failed after its content was written is taken back as far as MongoDB allows now: the
   * document (only this put's, by its content id), then the content. What is left, the purge removes
   * within the hour.
   */
  private async takeBack(id: string, contentId: ObjectId, failure: unknown): Promise<never> {
    await this.files
      .deleteOne({ _id: id, content_id: contentId })
      .then(() => this.contents.remove(contentId))
      .catch(() => undefined);
    throw failure;
  }
}
