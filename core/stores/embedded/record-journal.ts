/**
 * A store's records as a journal of changes, `<name>.jsonl` under the data directory (keys, teams, admin
 * tokens): each change appends one line, `{"put":record}` or `{"delete":id}`, the last line per id
 * winning. Changes made in the same moment share one append and one fdatasync (GroupCommit), so making
 * keys costs the same at the hundred-thousandth as at the first, where rewriting a whole file per change
 * grew with every key.
 *
 * The store keeps its records in memory and changes them there first, as it always has; the journal
 * makes them durable. When it holds `ratio` times more lines than there are records, it is rewritten as
 * one put per record (compaction), serialised in slices that yield to the event loop, and swapped in
 * atomically; changes arriving meanwhile wait and go into the new file together. After a failed append
 * the next write is a compaction, which writes whatever memory holds: no change is lost to a failure a
 * later write survives. A line torn by a crash was never acknowledged and is skipped.
 *
 * A store that kept its records in one JSON file (keys.json) is converted at its first open: the journal
 * is written whole and synced, then the old file renamed `<file>.old`; a crash between leaves the
 * journal to win.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { writeHealth, type StoreHealth } from '../store-health';
import { readFileIfExists, removeUnfinishedWrites, renameIfExists, writeFileAtomic } from './atomic-file';
import { GroupCommit } from './group-commit';
import { eachLine } from './journal-lines';
import { endTornLine } from './torn-line';

/** A journal line: a record stored (or replaced), or one removed. */
type Change<T> = { readonly put: T } | { readonly delete: string };

export interface JournalOptions {
  /** Compact when the journal holds this many times more lines than there are records… */
  readonly ratio: number;
  /** …and at least this many. */
  readonly minLines: number;
}

export const DEFAULT_COMPACTION: JournalOptions = { ratio: 4, minLines: 1_000 };

/** Records serialised per turn of the event loop while compacting: some 250 KB of keys. */
const RECORDS_PER_SLICE = 1_000;

/** The file a store kept its records in before, and how to read them from its parsed content. */
export interface LegacyFile<T> {
  readonly name: string;
  readonly records: (content: unknown) => readonly T[];
}

export class RecordJournal<T extends { readonly id: string }> {
  private readonly commit: GroupCommit;
  /** The last failed append's error, until a compaction has written what memory holds. */
  private unwritten: unknown;
  /** A failed append may have left part of a line: the next one starts on a new line. */
  private torn = false;
  private compactionFailure: unknown;
  /**
   * The journal file as written so far (device, inode and size), to notice one removed or replaced under
   * the gateway: a file made anew may get the inode just freed, but not the size.
   */
  private identity: string;
  /** The file appended to was not the journal written so far: it is rewritten from memory next. */
  private replaced = false;

  private constructor(
    private readonly file: string,
    private readonly what: string,
    /** Every record the store holds now, by id, in its order. */
    private readonly live: () => ReadonlyMap<string, T>,
    private lines: number,
    private readonly options: JournalOptions,
    identity: string,
  ) {
    this.identity = identity;
    this.commit = new GroupCommit(
      (text, count) => this.append(text, count),
      () => this.compactIfDue(),
    );
  }

  /**
   * Opens `<name>.jsonl` in `dataDir` (converting `legacy` if only it exists) and returns the records it
   * holds, in the order they were first put.
   */
  static async open<T extends { readonly id: string }>(
    dataDir: string,
    name: string,
    how: {
      readonly live: () => ReadonlyMap<string, T>;
      readonly legacy?: LegacyFile<T>;
      readonly options?: JournalOptions;
    },
  ): Promise<{ journal: RecordJournal<T>; records: T[] }> {
    const file = join(dataDir, `${name}.jsonl`);
    await removeUnfinishedWrites(file); // a compaction or conversion a crash cut short
    let { records, lines } = await readJournal<T>(file);
    if (how.legacy) {
      const legacyFile = join(dataDir, how.legacy.name);
      if (lines === 0) records = await convertLegacy(legacyFile, how.legacy, file);
      lines = Math.max(lines, records.length);
      // Kept beside the journal, for a rollback to a version that reads it; nothing reads it here.
      await renameIfExists(legacyFile, `${legacyFile}.old`);
    }
    const identity = await openJournal(file);
    const options = how.options ?? DEFAULT_COMPACTION;
    const journal = new RecordJournal(file, `${name}.jsonl`, how.live, lines, options, identity);
    return { journal, records };
  }

  /** Resolves once `record` (already in memory) is on disk. */
  put(record: T): Promise<void> {
    return this.commit.add(putLine(record));
  }

  /** Resolves once the removal of `id` (already gone from memory) is on disk. */
  delete(id: string): Promise<void> {
    return this.commit.add(JSON.stringify({ delete: id }));
  }

  /** Failing from a failed write until memory is on disk again. */
  health(): StoreHealth {
    const lost = this.unwritten === undefined ? undefined : (this.compactionFailure ?? this.unwritten);
    return writeHealth(this.what, this.commit.failure ?? lost);
  }

  /** Waits for the writes under way (and a compaction they started). */
  settled(): Promise<void> {
    return this.commit.settled();
  }

  private async append(text: string, count: number): Promise<void> {
    // Opened per write: a journal replaced or removed under the gateway is noticed, not appended to unseen.
    let handle: FileHandle | undefined;
    try {
      handle = await open(this.file, 'a', 0o600);
      const before = await handle.stat();
      this.notice(identityOf(before));
      const written = this.torn ? `\n${text}` : text;
      await handle.appendFile(written);
      await handle.datasync();
      this.torn = false;
      this.identity = identityOf(before, Buffer.byteLength(written));
    } catch (e) {
      this.torn = true;
      this.unwritten = e;
      throw e;
    } finally {
      await handle?.close();
    }
    this.lines += count;
  }

  /** A file other than the one written so far (a new one where it was removed) holds only what follows. */
  private notice(identity: string): void {
    if (identity !== this.identity) this.replaced = true;
    this.identity = identity;
  }

  /**
   * Rewrites the journal as one put per record: when it has grown past the records, lost a change to a
   * failed append, or was replaced.
   */
  private async compactIfDue(): Promise<void> {
    const live = this.live();
    const { ratio, minLines } = this.options;
    const due = this.lines > minLines && this.lines > ratio * live.size;
    if (!due && this.unwritten === undefined && !this.replaced) return;
    const records = [...live.values()]; // records are replaced, never changed: this is the moment's state
    try {
      await writeFileAtomic(this.file, slices(records));
      this.compactionFailure = undefined;
    } catch (e) {
      this.compactionFailure = e;
      throw e;
    }
    this.lines = records.length;
    this.unwritten = undefined;
    this.replaced = false;
    this.torn = false;
    this.identity = identityOf(await stat(this.file));
  }
}

const putLine = (record: unknown): string => JSON.stringify({ put: record });

/** The records' put lines, a slice per turn of the event loop: a large store never stalls a request. */
async function* slices(records: readonly unknown[]): AsyncGenerator<string> {
  for (let at = 0; at < records.length; at += RECORDS_PER_SLICE) {
    if (at > 0) await nextTurn();
    yield records
      .slice(at, at + RECORDS_PER_SLICE)
      .map((record) => `${putLine(record)}\n`)
      .join('');
  }
}

/** The records of an old whole-store file, written to the journal (synced); none without that file. */
async function convertLegacy<T>(legacyFile: string, legacy: LegacyFile<T>, journal: string): Promise<T[]> {
  const text = await readFileIfExists(legacyFile);
  if (!text) return [];
  const records = [...legacy.records(JSON.parse(text))];
  await writeFileAtomic(journal, slices(records));
  return records;
}

/** The records after the journal's last line, in first-put order, and how many lines it has. */
async function readJournal<T extends { readonly id: string }>(
  file: string,
): Promise<{ records: T[]; lines: number }> {
  const records = new Map<string, T>();
  let lines = 0;
  await eachLine(file, (line) => {
    lines++;
    const change = parseChange<T>(line);
    if (change && 'put' in change) records.set(change.put.id, change.put);
    else if (change) records.delete(change.delete);
  });
  return { records: [...records.values()], lines };
}

function parseChange<T>(line: string): Change<T> | undefined {
  try {
    const value = JSON.parse(line) as Partial<{ put: T & { id?: unknown }; delete: unknown }> | null;
    if (typeof value?.put?.id === 'string') return { put: value.put };
    if (typeof value?.delete === 'string') return { delete: value.delete };
  } catch {
    // a line cut by a crash mid-append: the change it held was never acknowledged
  }
  return undefined;
}

/** A file's device, inode and size (plus `appended` bytes): the same journal, as far as a stat can tell. */
const identityOf = ({ dev, ino, size }: { dev: number; ino: number; size: number }, appended = 0): string =>
  `${dev}:${ino}:${size + appended}`;

/** Creates the journal if there is none and ends a torn last line; returns the file's identity. */
async function openJournal(file: string): Promise<string> {
  const handle = await open(file, 'a+', 0o600);
  try {
    const stat = await handle.stat();
    return identityOf(stat, await endTornLine(handle, stat.size));
  } finally {
    await handle.close();
  }
}
