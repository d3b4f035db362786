/**
 * The pure arithmetic of `npm run bench:stores`: keys made grouped into blocks by when they were made,
 * the latency goal while keys are being made, and the disk a run needs.
 */

/** One key made: when its POST was sent and when its answer came, in ms from the start of key creation. */
export interface KeyTiming {
  readonly startMs: number;
  readonly endMs: number;
}

/** One block of keys, in the order their answers came. */
export interface KeyBlock {
  /** Keys made by the end of this block (the store's size then, its first key aside). */
  readonly upTo: number;
  readonly keys: number;
  /** The block's wall time over its keys: what one more key costs at this size. */
  readonly msPerKey: number;
  /** The mean time one POST of the block waited for its answer (several are in flight at once). */
  readonly meanPostMs: number;
}

const MAX_BLOCK = 10_000;
const BLOCKS = 10;

/** Blocks of 10,000 keys, or of a tenth of the keys when fewer than 100,000 are made. */
export const blockSize = (keys: number): number => Math.max(1, Math.min(MAX_BLOCK, Math.ceil(keys / BLOCKS)));

const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

/**
 * `timings` in blocks of `size` by the time each answer came (the last block may be shorter); a block's
 * wall time runs from the previous block's last answer (the first's from 0) to its own last answer.
 */
export function keyBlocks(timings: readonly KeyTiming[], size: number): KeyBlock[] {
  const done = [...timings].sort((a, b) => a.endMs - b.endMs);
  const blocks: KeyBlock[] = [];
  for (let from = 0; from < done.length; from += size) {
    const block = done.slice(from, from + size);
    const began = from === 0 ? 0 : done[from - 1]!.endMs;
    blocks.push({
      upTo: from + block.length,
      keys: block.length,
      msPerKey: (block[block.length - 1]!.endMs - began) / block.length,
      meanPostMs: mean(block.map((t) => t.endMs - t.startMs)),
    });
  }
  return blocks;
}

/** How much dearer a key is in the last block than in the first: 1 is a store whose cost does not grow. */
export function growth(blocks: readonly KeyBlock[]): number {
  const first = blocks[0];
  const last = blocks[blocks.length - 1];
  return first && last ? last.msPerKey / first.msPerKey : Number.NaN;
}

/** The chat calls' p99 while keys are made may be at most this many times the calm p99… */
export const P99_TIMES = 3;
/** …or the calm p99 plus this many ms, whichever is more. */
export const P99_PLUS_MS = 25;

/** A stretch of chat calls: their p99 and how many answered. */
export interface P99Sample {
  readonly p99Ms: number;
  readonly requests: number;
}

/** The latency goal as a run met it: `not checked` when either stretch had no answers to judge. */
export interface LatencyGoal {
  readonly status: 'pass' | 'fail' | 'not checked';
  readonly calmP99Ms: number;
  readonly duringP99Ms: number;
  /** The most `duringP99Ms` may be. */
  readonly limitMs: number;
}

/** The chat calls' p99 while keys are made against the calm one: at most 3× calm, or calm + 25 ms. */
export function latencyGoal(calm: P99Sample, during: P99Sample): LatencyGoal {
  const limitMs = Math.max(P99_TIMES * calm.p99Ms, calm.p99Ms + P99_PLUS_MS);
  const judged = calm.requests > 0 && during.requests > 0;
  return {
    status: !judged ? 'not checked' : during.p99Ms <= limitMs ? 'pass' : 'fail',
    calmP99Ms: calm.p99Ms,
    duringP99Ms: during.p99Ms,
    limitMs,
  };
}

/** What one usage record takes on disk, a little over what the writer's records average (about 330 bytes). */
const BYTES_PER_RECORD = 360;
/** keys.json holds about 500 bytes a key, and is written beside itself before each rename; the audit log a line. */
const BYTES_PER_KEY = 2_000;
/** The logs, the other stores, and room for the file system to breathe. */
const SPARE_BYTES = 512 * 1024 * 1024;

/** The disk a run of `keys` and `records` needs in its temp folder. */
export const diskNeeded = (keys: number, records: number): number =>
  records * BYTES_PER_RECORD + keys * BYTES_PER_KEY + SPARE_BYTES;
