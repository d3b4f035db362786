/**
 * Batch files in one process. Each file's content is `files/<id>`, written atomically (temporary file,
 * fsync, rename, directory fsync) before its metadata is journaled; the metadata lives in memory and in
 * `files.jsonl`, a journal of puts and deletes appended with group commit and synced before a change is
 * acknowledged, so a restart knows every file. A deleted or expired file is gone from every read at
 * once; its content is removed from disk right after a delete, and for an expired one by the purge (at
 * open and hourly). Opening also removes content that no live file owns (a put or delete cut short by a
 * crash). One data directory belongs to one gateway process.
 */
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { eachLine } from './journal-lines';
import type { FilePageQuery, FileStore, StoredFile } from '../file-store';
import { firstFailing, writeHealth, type StoreHealth } from '../store-health';
import { newestFirst } from '../task-store';
import { AppendLog } from './append-log';
import { writeFileAtomic } from './atomic-file';
import { GroupCommit } from './group-commit';

const JOURNAL = 'files';
export const FILES_JOURNAL = `${JOURNAL}.jsonl`;
export const FILES_DIR = 'files';
/** The journal is rewritten instead (compaction), so it never rotates. */
const NEVER_ROTATE = Number.POSITIVE_INFINITY;
/** Compact when the journal holds this many times more lines than there are files (and enough to matter). */
const COMPACT_RATIO = 4;
const COMPACT_MIN_LINES = 10_000;
/** How often the content of expired files is removed. */
const PURGE_EVERY_MS = 60 * 60 * 1000;
/** File ids the gateway makes (`file-…`): safe as a file name, nothing that could step out of the folder. */
const FILE_SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** A journal line: a file stored, or one deleted. */
type JournalRecord = { readonly put: StoredFile } | { readonly delete: string };

const expired = (file: StoredFile, now: number): boolean =>
  file.expires_at !== null && file.expires_at <= now;

export class EmbeddedFileStore implements FileStore {
  /** Ids of puts under way and of files being deleted: a put of the same id is refused meanwhile. */
  private readonly busy = new Set<string>();
  /** Ids being deleted: already gone for readers. */
  private readonly deleting = new Set<string>();
  private readonly journal: GroupCommit;
  private log: AppendLog | undefined;
  /** The last content write's error, until one succeeds: for readiness. */
  private contentFailure: unknown;
  private purger: NodeJS.Timeout | undefined;

  private constructor(
    private readonly dataDir: string,
    /** Every file the journal holds, as of its last acknowledged line. */
    private readonly files: Map<string, StoredFile>,
    private journalLines: number,
  ) {
    this.journal = new GroupCommit(
      (text, lines) => this.append(text, lines),
      () => this.compactIfDue(),
    );
  }

  static async open(dataDir: string): Promise<EmbeddedFileStore> {
    await mkdir(join(dataDir, FILES_DIR), { recursive: true });
    const { files, lines } = await readJournal(join(dataDir, FILES_JOURNAL));
    const store = new EmbeddedFileStore(dataDir, files, lines);
    await store.sweep(Date.now());
    store.log = await AppendLog.open(dataDir, JOURNAL, NEVER_ROTATE, () => undefined);
    store.purger = setInterval(() => void store.purge(Date.now()), PURGE_EVERY_MS).unref();
    return store;
  }

  async put(file: StoredFile, content: Buffer): Promise<void> {
    if (!FILE_SAFE_ID.test(file.id)) throw new Error(`file id ${JSON.stringify(file.id)} cannot name a file`);
    if (this.files.has(file.id) || this.busy.has(file.id)) throw new Error(`file ${file.id} exists`);
    this.busy.add(file.id);
    const stored: StoredFile = { ...file };
    const path = this.contentPath(file.id);
    try {
      await this.writeContent(path, content);
      await this.journal.add(JSON.stringify({ put: stored }), () => this.files.set(stored.id, stored));
    } catch (e) {
      // Not journaled, so not stored: its content goes (or, failing that, at the next open).
      if (!this.files.has(file.id)) await unlink(path).catch(() => undefined);
      throw e;
    } finally {
      this.busy.delete(file.id);
    }
  }

  get(id: string, now: number): Promise<StoredFile | undefined> {
    return Promise.resolve(this.visible(id, now));
  }

  async content(id: string, now: number): Promise<Buffer | undefined> {
    if (!this.visible(id, now)) return undefined;
    try {
      return await readFile(this.contentPath(id));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // deleted meanwhile
      throw e;
    }
  }

  /**
   * Every file is read: fine for the files one process keeps. An `after` that is not a file of the key
   * visible now (deleted, expired) gives an empty page: its place in the order is gone.
   */
  page(query: FilePageQuery, now: number): Promise<StoredFile[]> {
    const { key_id, purpose, after } = query;
    const from = after === undefined ? undefined : this.visible(after, now);
    if (after !== undefined && from?.key_id !== key_id) return Promise.resolve([]);
    const matches: StoredFile[] = [];
    for (const file of this.files.values()) {
      if (file.key_id !== key_id || (purpose !== undefined && file.purpose !== purpose)) continue;
      if (!this.visible(file.id, now) || (from && newestFirst(file, from) <= 0)) continue;
      matches.push(file);
    }
    return Promise.resolve(matches.sort(newestFirst).slice(0, Math.max(0, query.limit)));
  }

  async delete(id: string, now: number): Promise<boolean> {
    if (!this.visible(id, now)) return false;
    this.deleting.add(id);
    this.busy.add(id);
    try {
      await this.journal.add(JSON.stringify({ delete: id }), () => this.files.delete(id));
      await unlink(this.contentPath(id)).catch(() => undefined); // else removed at the next open
      return true;
    } finally {
      this.deleting.delete(id);
      this.busy.delete(id);
    }
  }

  /**
   * Forgets the files expired at `now` and removes their content. Nothing is written: the journal loses
   * them at its next compaction, and a reopen skips them again.
   */
  async purge(now: number): Promise<number> {
    const gone = [...this.files.values()].filter((file) => expired(file, now) && !this.busy.has(file.id));
    for (const file of gone) this.files.delete(file.id);
    // A content file that cannot be removed now is removed at the next open.
    await Promise.all(gone.map((file) => unlink(this.contentPath(file.id)).catch(() => undefined)));
    return gone.length;
  }

  /** Failing from a failed journal append or content write until one succeeds. */
  health(): StoreHealth {
    return firstFailing([
      writeHealth(FILES_JOURNAL, this.journal.failure),
      writeHealth(FILES_DIR, this.contentFailure),
    ]);
  }

  async close(): Promise<void> {
    clearInterval(this.purger);
    await this.journal.settled();
    await this.log?.close();
    this.log = undefined;
  }

  private visible(id: string, now: number): StoredFile | undefined {
    const file = this.files.get(id);
    return file && !this.deleting.has(id) && !expired(file, now) ? file : undefined;
  }

  private contentPath(id: string): string {
    return join(this.dataDir, FILES_DIR, id);
  }

  private async writeContent(path: string, content: Buffer): Promise<void> {
    try {
      await writeFileAtomic(path, content);
      this.contentFailure = undefined;
    } catch (e) {
      this.contentFailure = e;
      throw e;
    }
  }

  /**
   * At open: forgets the expired files and those whose content is missing (a put whose journal line
   * reached the disk though its write was reported failed), and removes content no live file owns.
   */
  private async sweep(now: number): Promise<void> {
    const dir = join(this.dataDir, FILES_DIR);
    const names = new Set(await readdir(dir));
    for (const file of [...this.files.values()]) {
      if (expired(file, now) || !names.has(file.id)) this.files.delete(file.id);
    }
    const orphans = [...names].filter((name) => !this.files.has(name));
    await Promise.all(orphans.map((name) => unlink(join(dir, name)).catch(() => undefined)));
  }

  private async append(text: string, lines: number): Promise<void> {
    this.log ??= await AppendLog.open(this.dataDir, JOURNAL, NEVER_ROTATE, () => undefined);
    await this.log.append(text, true);
    this.journalLines += lines;
  }

  /** Rewrites the journal as one line per file (atomically), then appends to the new file. */
  private async compactIfDue(): Promise<void> {
    if (this.journalLines <= COMPACT_MIN_LINES || this.journalLines <= COMPACT_RATIO * this.files.size)
      return;
    const lines = [...this.files.values()].map((file) => JSON.stringify({ put: file }) + '\n');
    await writeFileAtomic(join(this.dataDir, FILES_JOURNAL), lines.join(''));
    await this.log?.close();
    this.log = undefined; // the next append opens the new file
    this.journalLines = lines.length;
  }
}

/** The files the journal holds after its last line, and how many lines it has. A torn line is skipped. */
async function readJournal(file: string): Promise<{ files: Map<string, StoredFile>; lines: number }> {
  const files = new Map<string, StoredFile>();
  let lines = 0;
  await eachLine(file, (line) => {
    lines++;
    const record = parseRecord(line);
    if (record && 'put' in record) files.set(record.put.id, record.put);
    else if (record) files.delete(record.delete);
  });
  return { files, lines };
}

function parseRecord(line: string): JournalRecord | undefined {
  try {
    const value = JSON.parse(line) as Partial<{ put: StoredFile; delete: string }> | null;
    if (typeof value?.put?.id === 'string') return { put: value.put };
    if (typeof value?.delete === 'string') return { delete: value.delete };
  } catch {
    // a line cut by a crash mid-append: the change it held was never acknowledged
  }
  return undefined;
}
