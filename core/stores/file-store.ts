/**
 * Files clients upload for batches (OpenAI's `/v1/files`), and the output and error files the gateway
 * writes for the batches it runs. A file belongs to the key that uploaded it (or whose batch wrote it):
 * only that key may read, list or delete it. Content is immutable once stored.
 */
import { token } from '../base/token';

/** Why a file exists: OpenAI's `purpose` words for the two a batch uses. */
export type FilePurpose = 'batch' | 'batch_output';

export interface StoredFile {
  /** `file-` and an unguessable suffix. */
  readonly id: string;
  /** The owning key (null when the pipeline has no auth stage). */
  readonly key_id: string | null;
  readonly team_id?: string;
  readonly filename: string;
  readonly purpose: FilePurpose;
  readonly bytes: number;
  /** JSON lines in the content (each a request or a result). */
  readonly lines: number;
  /** Unix ms. */
  readonly created_at: number;
  /** Unix ms after which the file is gone (`storage.batch_retention` from its creation); null: kept. */
  readonly expires_at: number | null;
}

/** A page of one key's files, newest first (`created_at`, then `id`, both descending). */
export interface FilePageQuery {
  readonly key_id: string | null;
  readonly limit: number;
  /**
   * Only files after this one in that order (the last file of the previous page). One that is not a
   * file of `key_id` at `now` (unknown, another key's, deleted, expired) has no place: the page is empty.
   */
  readonly after?: string;
  readonly purpose?: FilePurpose;
}

export interface FileStore {
  /** Stores the file and its content durably before resolving. Fails if the id is taken. */
  put(file: StoredFile, content: Buffer): Promise<void>;
  /** The file, unless it does not exist, was deleted, or expired at `now`. */
  get(id: string, now: number): Promise<StoredFile | undefined>;
  /** Its content, under the same conditions as `get`. */
  content(id: string, now: number): Promise<Buffer | undefined>;
  page(query: FilePageQuery, now: number): Promise<StoredFile[]>;
  /** True when the file existed (and was not expired) and is now gone, content included. */
  delete(id: string, now: number): Promise<boolean>;
  close(): Promise<void>;
}

export const FileStoreToken = token<FileStore>('FileStore');
