/**
 * The audit log as JSON lines in `audit.jsonl` under the data directory (rotated by size into
 * `audit-<time>.jsonl`, see AppendLog). Each record is appended and synced on its own before `append`
 * resolves: the admin API answers only once its record is on disk.
 *
 * Retention: at open and then hourly, records older than the retention are dropped: a rotated file wholly
 * past it is deleted, one partly past it rewritten atomically with the rest; a current file that holds
 * expired records is rotated first, so the file being appended to is never rewritten under a writer.
 * Records are appended in time order, so a file whose first record is within the retention is kept
 * whole without reading the rest: a start-up reads the log's first lines, not the log.
 *
 * Listings scan every file: the log of an admin API is thousands of records a year, not millions.
 */
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import pino, { type Logger } from 'pino';
import { matchesAudit, type AuditQuery, type AuditRecord, type AuditStore } from '../audit-store';
import { writeHealth, type StoreHealth } from '../store-health';
import { AppendLog } from './append-log';
import { readFileIfExists, writeFileAtomic } from './atomic-file';

export interface EmbeddedAuditOptions {
  /** How long a record is kept; 0 keeps them all. */
  readonly retentionMs: number;
  /** `audit.jsonl` is rotated once it reaches this many bytes. */
  readonly rotateBytes?: number;
  readonly logger?: Logger;
}

const PRUNE_EVERY_MS = 3_600_000;
const ROTATE_BYTES = 16 * 1024 * 1024;

export class EmbeddedAuditStore implements AuditStore {
  /** AppendLog takes one call at a time: appends, scans and prunes run in this chain. */
  private chain: Promise<unknown> = Promise.resolve();
  private failure: unknown;
  private pruner: NodeJS.Timeout | undefined;

  private constructor(
    private readonly log: AppendLog,
    private readonly retentionMs: number,
  ) {}

  static async open(dataDir: string, options: EmbeddedAuditOptions): Promise<EmbeddedAuditStore> {
    const logger = options.logger ?? pino({ level: 'silent' });
    const log = await AppendLog.open(dataDir, 'audit', options.rotateBytes ?? ROTATE_BYTES, (e) =>
      logger.error({ err: e }, 'rotating audit.jsonl failed; appending to it meanwhile'),
    );
    const store = new EmbeddedAuditStore(log, options.retentionMs);
    if (store.retentionMs > 0) {
      await store.prune(Date.now()).catch(async (e: unknown) => {
        await log.close();
        throw e;
      });
      store.pruner = setInterval(() => {
        store.prune(Date.now()).catch((e: unknown) => logger.error({ err: e }, 'pruning audit.jsonl failed'));
      }, PRUNE_EVERY_MS).unref();
    }
    return store;
  }

  append(record: AuditRecord): Promise<void> {
    return this.serial(() => this.log.append(JSON.stringify(record) + '\n', true)).then(
      () => void (this.failure = undefined),
      (e: unknown) => {
        this.failure = e;
        throw e;
      },
    );
  }

  page(query: AuditQuery): Promise<AuditRecord[]> {
    return this.serial(async () => {
      const found: AuditRecord[] = [];
      for (const file of await this.log.files()) {
        for (const record of parseLines(await readFileIfExists(file))) {
          if (matchesAudit(record, query)) found.push(record);
        }
      }
      return found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, query.limit);
    });
  }

  /** Drops the records older than the retention at `now`; returns how many. */
  prune(now: number): Promise<number> {
    if (this.retentionMs <= 0) return Promise.resolve(0);
    const cutoff = new Date(now - this.retentionMs).toISOString();
    return this.serial(async () => {
      const current = (await this.log.files()).at(-1)!;
      const first = await firstRecord(current);
      if (first && first.at < cutoff) await this.log.startNewFile();
      let dropped = 0;
      for (const file of (await this.log.files()).slice(0, -1)) dropped += await pruneFile(file, cutoff);
      return dropped;
    });
  }

  /** Failing from a failed append of audit.jsonl until one succeeds. */
  health(): StoreHealth {
    return writeHealth('audit.jsonl', this.failure);
  }

  async close(): Promise<void> {
    clearInterval(this.pruner);
    await this.chain.catch(() => undefined);
    await this.log.close();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.catch(() => undefined).then(work);
    this.chain = run;
    return run;
  }
}

/** Rewrites a rotated file without the records before `cutoff` (deleted when none is left). */
async function pruneFile(file: string, cutoff: string): Promise<number> {
  const first = await firstRecord(file);
  if (first && first.at >= cutoff) return 0; // records are in time order: all of it is kept
  const records = parseLines(await readFile(file, 'utf8'));
  const kept = records.filter((r) => r.at >= cutoff);
  if (kept.length === records.length) return 0;
  if (kept.length === 0) await unlink(file);
  else await writeFileAtomic(file, kept.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return records.length - kept.length;
}

/** How much of a file's start is read for its first line: many records' worth. */
const HEAD_BYTES = 64 * 1024;

/** A file's first record, from its first bytes; undefined when it is empty, missing, or starts torn. */
async function firstRecord(file: string): Promise<AuditRecord | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, 'r');
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    const end = head.subarray(0, bytesRead).indexOf(0x0a);
    return end < 0 ? undefined : parseLines(head.toString('utf8', 0, end))[0];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  } finally {
    await handle?.close();
  }
}

/** The file's records; a line torn by a crash is skipped (its append was never acknowledged). */
function parseLines(text: string | undefined): AuditRecord[] {
  const records: AuditRecord[] = [];
  for (const line of (text ?? '').split('\n')) {
    if (!line) continue;
    try {
      records.push(JSON.parse(line) as AuditRecord);
    } catch {
      // torn
    }
  }
  return records;
}
