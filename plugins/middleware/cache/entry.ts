/** A stored answer, in the client's API, and what is known of the call that made it. */
import type { SseEvent, Usage } from '../../../core/kit/plugin';

export interface EntryMeta {
  /** The model the client asked for. */
  readonly model: string;
  /** The key and team of the call that stored it (for `DELETE /admin/cache?key_id=&team_id=`). */
  readonly key_id: string | null;
  readonly team_id: string | null;
  readonly endpoint: string;
  /** Epoch milliseconds: an entry's age is counted from here (the `age` header, `max-age`). */
  readonly stored_at: number;
  /** What the call used, recorded again on each hit with the cost it saved. */
  readonly usage: Usage;
}

/** A JSON answer's body as the client got it (its text), or a stream's events as the client got them. */
export type EntryBody = string | readonly SseEvent[];

export interface CacheEntry {
  readonly meta: EntryMeta;
  readonly body: EntryBody;
}

/** What `DELETE /admin/cache` removes: entries matching every filter given (all, with none). */
export interface ClearFilter {
  readonly key_id?: string;
  readonly team_id?: string;
  readonly model?: string;
}

export const matches = (meta: EntryMeta, filter: ClearFilter): boolean =>
  (filter.key_id === undefined || meta.key_id === filter.key_id) &&
  (filter.team_id === undefined || meta.team_id === filter.team_id) &&
  (filter.model === undefined || meta.model === filter.model);

/** An event's size as `data: …` and `event: …` lines, near enough for the bounds. */
export const eventSize = (ev: SseEvent): number => ev.data.length + (ev.event?.length ?? 0) + 16;

/** The body's size in bytes, near enough for the memory bound and `max_entry_size`. */
export function bodySize(body: EntryBody): number {
  if (typeof body === 'string') return body.length;
  let bytes = 0;
  for (const ev of body) bytes += eventSize(ev);
  return bytes;
}

/** Where entries live: this process's memory, or Redis shared by every instance. */
export interface CacheStore {
  readonly backend: 'memory' | 'redis';
  /** The entry for `key` (cache-key.ts), if stored and not expired; undefined when the store cannot answer. */
  get(key: string): CacheEntry | undefined | Promise<CacheEntry | undefined>;
  /** Stores `entry` for `ttlMs`; a failure is the store's to log, never the caller's. */
  set(key: string, entry: CacheEntry, ttlMs: number): void;
  /** Removes the entries matching `filter`, answering how many. */
  clear(filter: ClearFilter): Promise<number>;
  /** Entries and bytes held here, where the store knows (the memory backend). */
  size?(): { readonly entries: number; readonly bytes: number };
}
