/**
 * A JSON file under the data directory that holds a whole store and is rewritten atomically on each
 * change (keys.json, teams.json, admin-tokens.json): the store keeps its records in memory and hands
 * each snapshot here.
 */
import { writeHealth, type StoreHealth } from '../store-health';
import { readFileIfExists, writeFileAtomic } from './atomic-file';

export class SnapshotFile<T> {
  /** Writes are chained so two quick changes can not overwrite each other out of order. */
  private writing: Promise<void> = Promise.resolve();
  /** The last write's error, until one succeeds: for readiness. */
  private failure: unknown;

  constructor(
    readonly file: string,
    /** The file's name as readiness names it. */
    private readonly what: string,
  ) {}

  /** The file's content, or undefined when it does not exist yet. */
  async read(): Promise<T | undefined> {
    const text = await readFileIfExists(this.file);
    return text ? (JSON.parse(text) as T) : undefined;
  }

  /** Writes `snapshot` after the writes before it; a failed write before does not stop this one. */
  write(snapshot: T): Promise<void> {
    const write = this.writing
      .catch(() => undefined)
      .then(() => writeFileAtomic(this.file, JSON.stringify(snapshot, null, 2)))
      .then(
        () => void (this.failure = undefined),
        (e: unknown) => {
          this.failure = e;
          throw e;
        },
      );
    this.writing = write;
    return write;
  }

  /** Failing from a failed write until one succeeds (the next change writes the whole file). */
  health(): StoreHealth {
    return writeHealth(this.what, this.failure);
  }

  /** Waits for the writes under way; rejects when the last one failed. */
  settled(): Promise<void> {
    return this.writing;
  }
}
