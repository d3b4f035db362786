/**
 * The files' content in a GridFS bucket (`file_contents`: `.files` documents and `.chunks`), so a file
 * of up to 200 MB is stored in chunks well under MongoDB's 16 MB document limit.
 *
 * Written here rather than through the driver's upload stream: that stream inserts the chunks first and
 * the file document last, so a crash mid-upload would leave chunks that no document points to and no
 * purge could find. Here the document goes first, with an expiry (`metadata.expires_on`), then the
 * chunks, in the layout the driver reads (and `mongofiles` lists). Removal goes the other way, chunks
 * first: whatever a crash leaves behind still has its document and is found by `expired`. Reads go
 * through the driver's download stream, which checks each chunk's number and size.
 */
import { GridFSBucket, ObjectId, type Collection, type Db, type GridFSChunk, type GridFSFile } from 'mongodb';
import { STORE_COLLECTION_OPTIONS } from './connect';

/** GridFS's default chunk size: 255 KiB keeps a chunk and its document within one 256 KiB allocation. */
const CHUNK_BYTES = 255 * 1024;

/** A file's content, as the purge finds it. */
export interface ContentRef {
  readonly id: ObjectId;
  /** The file whose content it is (`StoredFile.id`). */
  readonly fileId: string;
}

export class FileContents {
  private constructor(
    private readonly bucket: GridFSBucket,
    private readonly docs: Collection<GridFSFile>,
    private readonly chunks: Collection<GridFSChunk>,
  ) {}

  static open(db: Db, bucketName: string): FileContents {
    return new FileContents(
      new GridFSBucket(db, { bucketName, writeConcern: STORE_COLLECTION_OPTIONS.writeConcern }),
      db.collection<GridFSFile>(`${bucketName}.files`, STORE_COLLECTION_OPTIONS),
      db.collection<GridFSChunk>(`${bucketName}.chunks`, STORE_COLLECTION_OPTIONS),
    );
  }

  /** Stores a file's content under a new id, to be removed by the purge from `expiresOn` on. */
  async write(fileId: string, content: Buffer, expiresOn: Date): Promise<ObjectId> {
    const id = new ObjectId();
    await this.docs.insertOne({
      _id: id,
      length: content.length,
      chunkSize: CHUNK_BYTES,
      uploadDate: new Date(),
      filename: fileId,
      metadata: { file_id: fileId, expires_on: expiresOn },
    });
    const chunks: GridFSChunk[] = [];
    for (let n = 0; n * CHUNK_BYTES < content.length; n++) {
      const data = content.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES);
      chunks.push({ _id: new ObjectId(), files_id: id, n, data });
    }
    // The driver splits these into messages of at most 48 MB, each acknowledged by the majority.
    if (chunks.length > 0) await this.chunks.insertMany(chunks, { ordered: true });
    return id;
  }

  /** When the purge may remove the content: `expiresOn`, or never (null). */
  async expireAt(id: ObjectId, expiresOn: Date | null): Promise<void> {
    await this.docs.updateOne(
      { _id: id },
      expiresOn ? { $set: { 'metadata.expires_on': expiresOn } } : { $unset: { 'metadata.expires_on': '' } },
    );
  }

  /** The whole content; fails if it is missing or any chunk is. */
  async read(id: ObjectId): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const part of this.bucket.openDownloadStream(id)) parts.push(part as Buffer);
    return Buffer.concat(parts);
  }

  /** Chunks first, then the document, so a removal cut short is still found by `expired`. */
  async remove(id: ObjectId): Promise<void> {
    await this.chunks.deleteMany({ files_id: id });
    await this.docs.deleteOne({ _id: id });
  }

  /** Up to `limit` contents whose expiry is `now` or earlier. */
  async expired(now: Date, limit: number): Promise<ContentRef[]> {
    const docs = await this.docs
      .find({ 'metadata.expires_on': { $lte: now } }, { projection: { _id: 1, 'metadata.file_id': 1 } })
      .limit(limit)
      .toArray();
    return docs.map((doc) => ({ id: doc._id, fileId: String(doc.metadata?.['file_id']) }));
  }
}
