/**
 * Making `npm run bench:stores`'s keys through the admin API as an operator's script would: a few
 * requests in flight at a time, each timed, the keys spread over a few teams so a team filter has work.
 * A POST whose connection drops before its answer (seen once in a few long runs: the server closing a
 * kept-alive connection as it is reused) is looked for by its description and sent again only if its
 * key was not made; its secret is then lost, and the run counts it.
 */
import type { KeyWithActivity, Page } from '../core/admin/wire';
import { adminJson, type AdminApi } from './admin-call';
import { blockSize, keyBlocks, type KeyBlock, type KeyTiming } from './stores-figures';

/** POSTs in flight at a time. */
export const KEY_CONCURRENCY = 8;
const TEAMS = 10;
/** Tries of one key's POST while its connection keeps dropping. */
const ATTEMPTS = 3;

/** A key made. */
export interface MadeKey {
  readonly id: string;
  /** Its secret, answered once when it is made; undefined when that answer was lost with its connection. */
  readonly key: string | undefined;
  /** Unique, and no other key's description contains it: a search for it finds this key alone. */
  readonly description: string;
  readonly teamId: string;
}

/** A key made whose secret the bench holds, to call with. */
export type KeyWithSecret = MadeKey & { readonly key: string };

/** What making the keys took. */
export interface KeysMade {
  /** In the order they were asked for. */
  readonly keys: readonly MadeKey[];
  readonly timings: readonly KeyTiming[];
  readonly blockSize: number;
  readonly blocks: readonly KeyBlock[];
  readonly totalMs: number;
  /** POSTs whose connection dropped before their answer. */
  readonly dropped: number;
}

/** The answer of `POST /admin/keys`, as far as the bench reads it. */
interface CreatedKey {
  readonly key: string;
  readonly record: { readonly id: string };
}

/** Told each time a block of keys has been made. */
export type BlockProgress = (made: number, of: number, msPerKey: number) => void;

/** Makes one key with `description`, in no team. */
export async function makeKey(api: AdminApi, description: string): Promise<{ id: string; key: string }> {
  const made = await adminJson<CreatedKey>(api, 'POST', '/admin/keys', { description });
  return { id: made.record.id, key: made.key };
}

/** Makes the teams the keys are spread over; resolves with their ids. */
async function makeTeams(api: AdminApi): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < TEAMS; i++) {
    ids.push((await adminJson<{ id: string }>(api, 'POST', '/admin/teams', { name: `bench team ${i}` })).id);
  }
  return ids;
}

/** `bench key 00042`: padded to one width, so no description holds another. */
const describe = (n: number, count: number): string =>
  `bench key ${String(n).padStart(String(count - 1).length, '0')}`;

/** fetch's own failure (no answer at all), as against an answer other than 2xx. */
const noAnswer = (e: unknown): boolean => e instanceof TypeError && e.message === 'fetch failed';

/** POSTs one key, tried again if its connection drops and the key is not found made; `onDrop` counts. */
async function makeOne(api: AdminApi, body: { description: string; team_id: string }, onDrop: () => void) {
  for (let attempt = 1; ; attempt++) {
    try {
      const made = await adminJson<CreatedKey>(api, 'POST', '/admin/keys', body);
      return { id: made.record.id, key: made.key };
    } catch (e) {
      if (!noAnswer(e) || attempt >= ATTEMPTS) throw e;
      onDrop();
      const q = `/admin/keys?q=${encodeURIComponent(body.description)}`;
      const found = (await adminJson<Page<KeyWithActivity>>(api, 'GET', q)).data[0];
      if (found) return { id: found.id, key: undefined };
    }
  }
}

/** Makes `count` keys, `KEY_CONCURRENCY` at a time, timing each; `progress` hears of every block. */
export async function makeKeys(api: AdminApi, count: number, progress: BlockProgress): Promise<KeysMade> {
  const teams = await makeTeams(api);
  const size = blockSize(count);
  const keys: MadeKey[] = new Array<MadeKey>(count);
  const timings: KeyTiming[] = [];
  const began = performance.now();
  let next = 0;
  let lastBlockEnd = 0;
  let dropped = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const n = next++;
      const description = describe(n, count);
      const teamId = teams[n % teams.length]!;
      const startMs = performance.now() - began;
      const made = await makeOne(api, { description, team_id: teamId }, () => dropped++);
      const endMs = performance.now() - began;
      keys[n] = { ...made, description, teamId };
      timings.push({ startMs, endMs });
      if (timings.length % size === 0 || timings.length === count) {
        const inBlock = timings.length % size || size;
        progress(timings.length, count, (endMs - lastBlockEnd) / inBlock);
        lastBlockEnd = endMs;
      }
    }
  };
  await Promise.all(Array.from({ length: KEY_CONCURRENCY }, worker));
  return {
    keys,
    timings,
    blockSize: size,
    blocks: keyBlocks(timings, size),
    totalMs: performance.now() - began,
    dropped,
  };
}

const hasSecret = (k: MadeKey | undefined): k is KeyWithSecret => k?.key !== undefined;

/** The key made nearest the middle whose secret the bench holds. */
export function middleKey(made: KeysMade): KeyWithSecret {
  const mid = Math.floor(made.keys.length / 2);
  for (let d = 0; d <= mid; d++) {
    const near = [made.keys[mid - d], made.keys[mid + d]].find(hasSecret);
    if (near) return near;
  }
  throw new Error('no key made has its secret: every answer was lost');
}
