/**
 * A month of usage for `npm run bench:console`, written straight into the embedded store's files (the
 * JSON lines of embedded-usage-store.ts, rotated every 64 MiB like the default `usage_rotate_size`):
 * a million records through the gateway would take far longer than the measurement itself.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { UsageRecord } from '../core/stores/usage-store';

const ROTATE_BYTES = 64 * 1024 * 1024;
const LINES_PER_WRITE = 5_000;

interface ModelMix {
  readonly model: string;
  readonly upstream: string;
  readonly endpoint: string;
  readonly share: number;
  readonly extra: (rand: () => number) => Partial<UsageRecord>;
}

const chat = (model: string, upstream: string, endpoint: string, share: number): ModelMix => ({
  model,
  upstream,
  endpoint,
  share,
  extra: () => ({}),
});

/** Chat dominates; images and video are rarer but costlier. */
const MODELS: readonly ModelMix[] = [
  chat('modela-5.5', 'modela-main', 'chat-completions', 0.34),
  chat('modelb-3.5-flash', 'modelb-main', 'chat-completions', 0.24),
  chat('modelc-3.6-plus', 'modelc-main', 'chat-completions', 0.16),
  chat('modeld-sonnet-4-5-20250929', 'modeld-main', 'messages', 0.18),
  {
    model: 'modelb-3.1-flash-image-preview',
    upstream: 'modelb-image',
    endpoint: 'images',
    share: 0.05,
    extra: (rand) => ({ images: 1 + Math.floor(rand() * 2), image_size: '1024x1024' }),
  },
  {
    model: 'videoa-1.1-t2v',
    upstream: 'videoa-main',
    endpoint: 'video',
    share: 0.03,
    extra: (rand) => ({ video_seconds: 5 * (1 + Math.floor(rand() * 2)), resolution: '720P' }),
  },
];

/** mulberry32: the same data on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T extends { share: number }>(items: readonly T[], r: number): T {
  for (const item of items) {
    if (r < item.share) return item;
    r -= item.share;
  }
  return items[items.length - 1]!;
}

function record(i: number, at: number, keyId: string, rand: () => number): UsageRecord {
  const m = pick(MODELS, rand());
  const prompt = 50 + Math.floor(rand() * 4_000);
  const completion = Math.floor(rand() * 1_500);
  return {
    id: `bench-${i.toString(36).padStart(8, '0')}-${Math.floor(rand() * 1e9).toString(36)}`,
    key_id: keyId,
    model: m.model,
    upstream: m.upstream,
    endpoint: m.endpoint,
    status: 200,
    stream: rand() < 0.6,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...m.extra(rand),
    // About one in ten priced unknown (null), never 0.
    cost_micros: rand() < 0.1 ? null : 1 + Math.floor(rand() * 50_000),
    estimated: false,
    outcome: '',
    latency_ms: 200 + Math.floor(rand() * 8_000),
    created_at: new Date(at).toISOString(),
  };
}

/** `usage-<time>.jsonl`, as AppendLog names a rotated file. */
const rotatedName = (at: number) => `usage-${new Date(at).toISOString().replace(/[-:.]/g, '')}.jsonl`;

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function finish(out: WriteStream): Promise<void> {
  out.end();
  await once(out, 'close');
}

/**
 * Writes `count` records spread evenly over `[from, to)`, oldest first, for `keyIds` (a few keys make
 * most of the calls, as in life); returns the bytes written.
 */
export async function writeUsage(
  dataDir: string,
  keyIds: readonly string[],
  count: number,
  from: number,
  to: number,
): Promise<number> {
  const rand = prng(42);
  const step = (to - from) / count;
  let bytes = 0;
  let fileBytes = 0;
  // Rotated files are named by the time they were rotated at: the last record they hold.
  const pending = join(dataDir, 'usage.tmp');
  let out = createWriteStream(pending, { mode: 0o600 });
  for (let i = 0; i < count; i += LINES_PER_WRITE) {
    const lines: string[] = [];
    let at = from;
    for (let j = i; j < Math.min(count, i + LINES_PER_WRITE); j++) {
      at = Math.floor(from + j * step + rand() * step);
      const key = keyIds[Math.floor(keyIds.length * rand() ** 2)]!;
      lines.push(JSON.stringify(record(j, at, key, rand)));
    }
    const text = lines.join('\n') + '\n';
    await write(out, text);
    const size = Buffer.byteLength(text);
    bytes += size;
    fileBytes += size;
    if (fileBytes >= ROTATE_BYTES && i + LINES_PER_WRITE < count) {
      await finish(out);
      await rename(pending, join(dataDir, rotatedName(at)));
      out = createWriteStream(pending, { mode: 0o600 });
      fileBytes = 0;
    }
  }
  await finish(out);
  await rename(pending, join(dataDir, 'usage.jsonl'));
  return bytes;
}
