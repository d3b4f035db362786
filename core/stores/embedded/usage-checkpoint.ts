/**
 * The usage store's checkpoint file, `usage.checkpoint` in the data directory: the roll-ups as they stood
 * at one moment, the position in the usage files they cover, the ids `recordOnce` had written, and the
 * lines counted but still queued then. At open the store reads it and only the lines past the position
 * (usage-load.ts), instead of every file.
 *
 * Layout: one line of JSON, the header (everything but the bucket columns, and every column's length);
 * zero bytes up to a multiple of 8; then the columns as they lie in memory: bucket starts and totals
 * (Float64), the buckets' identities and the identities' strings (Int32). A bucket costs 76 bytes and
 * loads as a copy of memory, where a JSON object per bucket would cost its parse and an object each. A
 * file whose length is not the one its header gives, of another version or byte order, is refused whole.
 */
import { endianness } from 'node:os';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { IDENTITY_WIDTH, type RollupState } from '../usage-rollup';
import { TOTALS_WIDTH } from '../usage-rollup-level';
import { writeFileAtomic } from './atomic-file';

export const CHECKPOINT_FILE = 'usage.checkpoint';

/** Bumped whenever the layout or what a bucket holds changes: a checkpoint of another version is not read. */
const VERSION = 1;

/** The usage files a checkpoint's roll-ups cover. */
export interface CheckpointPosition {
  /** The rotated files counted whole, oldest first, by name and size (a size shows one rewritten). */
  readonly rotated: readonly FileMark[];
  /**
   * The file being appended to (usage.jsonl then; rotated since, it is found by its inode, which a rename
   * keeps) and how many of its bytes are counted.
   */
  readonly current: { readonly dev: number; readonly ino: number; readonly size: number };
}

export interface FileMark {
  readonly name: string;
  readonly size: number;
}

export interface UsageCheckpoint {
  readonly position: CheckpointPosition;
  /** The ids of the records `recordOnce` had written. */
  readonly onceIds: readonly string[];
  /** Lines counted in the roll-ups but still queued, not yet written: the files may or may not hold them. */
  readonly pending: readonly string[];
  readonly rollup: RollupState;
}

const fileMark = z.object({ name: z.string(), size: z.number().int().nonnegative() });
const count = z.number().int().nonnegative();

/** The header line: the checkpoint but its columns, with the columns' lengths. */
const headerSchema = z.object({
  version: z.number(),
  endianness: z.enum(['BE', 'LE']),
  buckets: count,
  identities: count,
  position: z.object({
    rotated: z.array(fileMark).readonly(),
    current: z.object({ dev: z.number(), ino: z.number(), size: count }),
  }),
  onceIds: z.array(z.string()).readonly(),
  pending: z.array(z.string()).readonly(),
  strings: z.array(z.string()).readonly(),
  lastUsedAt: z.array(z.tuple([z.string(), z.string()]).readonly()).readonly(),
});
type Header = z.infer<typeof headerSchema>;

/** Why a checkpoint file was not used: the store then reads every file. */
export class UnusableCheckpoint extends Error {}

export function writeCheckpoint(file: string, checkpoint: UsageCheckpoint): Promise<void> {
  const { rollup } = checkpoint;
  const header: Header = {
    version: VERSION,
    endianness: endianness(),
    buckets: rollup.buckets.starts.length,
    identities: rollup.identities.length / IDENTITY_WIDTH,
    position: checkpoint.position,
    onceIds: checkpoint.onceIds,
    pending: checkpoint.pending,
    strings: rollup.strings,
    lastUsedAt: [...rollup.lastUsedAt],
  };
  const head = Buffer.from(JSON.stringify(header) + '\n');
  const columns = [
    rollup.buckets.starts,
    rollup.buckets.totals,
    rollup.buckets.identities,
    rollup.identities,
  ];
  return writeFileAtomic(file, [
    head,
    new Uint8Array(padding(head.length)),
    ...columns.map((c) => new Uint8Array(c.buffer, c.byteOffset, c.byteLength)),
  ]);
}

/** The checkpoint in `file`, or undefined when there is none; throws UnusableCheckpoint on one it cannot use. */
export async function readCheckpoint(file: string): Promise<UsageCheckpoint | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const end = bytes.indexOf(0x0a);
  if (end < 0) throw new UnusableCheckpoint('no header line');
  const header = parseHeader(bytes.subarray(0, end).toString('utf8'));
  const body = aligned(bytes.subarray(end + 1 + padding(end + 1)));
  const b = header.buckets;
  const lengths = [b * 8, b * TOTALS_WIDTH * 8, b * 4, header.identities * IDENTITY_WIDTH * 4];
  const expected = lengths.reduce((sum, n) => sum + n, 0);
  if (body.byteLength !== expected) {
    throw new UnusableCheckpoint(`${body.byteLength} bytes of columns where the header gives ${expected}`);
  }
  const at = (i: number) => body.byteOffset + lengths.slice(0, i).reduce((sum, n) => sum + n, 0);
  return {
    position: header.position,
    onceIds: header.onceIds,
    pending: header.pending,
    rollup: {
      strings: header.strings,
      lastUsedAt: new Map(header.lastUsedAt),
      buckets: {
        starts: new Float64Array(body.buffer, at(0), b),
        totals: new Float64Array(body.buffer, at(1), b * TOTALS_WIDTH),
        identities: new Int32Array(body.buffer, at(2), b),
      },
      identities: new Int32Array(body.buffer, at(3), header.identities * IDENTITY_WIDTH),
    },
  };
}

function parseHeader(text: string): Header {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UnusableCheckpoint('a header that is not JSON');
  }
  const parsed = headerSchema.safeParse(json);
  if (!parsed.success) throw new UnusableCheckpoint(`a header of another shape: ${parsed.error.message}`);
  const header = parsed.data;
  if (header.version !== VERSION) throw new UnusableCheckpoint(`version ${header.version}, not ${VERSION}`);
  if (header.endianness !== endianness()) throw new UnusableCheckpoint(`written ${header.endianness}`);
  return header;
}

/** Zero bytes after `length` bytes to reach a multiple of 8, where the Float64 columns may start. */
const padding = (length: number): number => (8 - (length % 8)) % 8;

/** The bytes, copied if they do not start on a multiple of 8 in memory (a typed array's view must). */
const aligned = (bytes: Buffer): Uint8Array => (bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes));
