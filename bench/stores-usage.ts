/**
 * `npm run bench:stores`'s usage: a month of records written straight into a stopped gateway's data
 * directory, before the records its own calls left there, and counted back through the admin API.
 */
import { appendFile, readdir, readFile, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { List, UsageSummaryRow } from '../core/admin/wire';
import { adminJson, type AdminApi } from './admin-call';
import { writeUsage } from './console-usage-data';
import { diskNeeded } from './stores-figures';

const DAY_MS = 24 * 3_600_000;
const GB = 1024 ** 3;

/** The run would fill the disk: said plainly, without a stack. */
export class NotEnoughDisk extends Error {}

/** Throws, saying how much is missing and how to point the run elsewhere, unless `dir` has room for the run. */
export async function checkDisk(dir: string, keys: number, records: number): Promise<void> {
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  const needed = diskNeeded(keys, records);
  if (free < needed) {
    const gb = (bytes: number) => `${(bytes / GB).toFixed(1)} GB`;
    throw new NotEnoughDisk(
      `${dir} has ${gb(free)} free; ${keys} keys and ${records} usage records need about ${gb(needed)}. ` +
        'Free some space, point TMPDIR at a larger disk, or lower --keys / --records.',
    );
  }
}

/** The usage files a gateway writes: the current one and its rotated ones. */
const USAGE_FILE = /^usage(-\d{8}T\d{9}Z)?\.jsonl$/;

/** What was written. */
export interface UsageWritten {
  readonly records: number;
  readonly bytes: number;
  readonly ms: number;
}

/**
 * Writes `records` records for `keyIds` over the 30 days before `before` into the stopped gateway's
 * `dataDir`, then appends the records the gateway wrote itself (all after `before`) to the current file,
 * so the files stay in time order as the store would have written them.
 */
export async function writeUsageBefore(
  dataDir: string,
  keyIds: readonly string[],
  records: number,
  before: number,
): Promise<UsageWritten> {
  const files = (await readdir(dataDir)).filter((f) => USAGE_FILE.test(f));
  if (files.some((f) => f !== 'usage.jsonl')) {
    throw new Error(`the gateway rotated its own usage file (${files.join(', ')}); the bench expects one`);
  }
  const current = join(dataDir, 'usage.jsonl');
  const own = files.length > 0 ? await readFile(current) : Buffer.alloc(0);
  const started = performance.now();
  const bytes = await writeUsage(dataDir, keyIds, records, before - 30 * DAY_MS, before);
  await appendFile(current, own);
  return { records, bytes, ms: performance.now() - started };
}

/** Every record the gateway knows of, counted by a usage summary, and how long the summary took. */
export interface UsageCount {
  readonly requests: number;
  readonly ms: number;
}

/** `GET /admin/usage/summary?group_by=model`, its rows' requests summed. */
export async function countUsage(api: AdminApi): Promise<UsageCount> {
  const started = performance.now();
  const summary = await adminJson<List<UsageSummaryRow>>(api, 'GET', '/admin/usage/summary?group_by=model');
  const ms = performance.now() - started;
  return { requests: summary.data.reduce((sum, row) => sum + row.requests, 0), ms };
}
