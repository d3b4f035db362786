/**
 * What the client's `Cache-Control` asks of the cache, as HTTP has it (RFC 9111 §5.2.1): `no-store`
 * neither reads nor writes, `no-cache` writes a fresh answer without reading one, `max-age=N` accepts an
 * entry at most N seconds old (its `age`, in whole seconds).
 */
import { parse } from 'cache-control-parser';
import { LRUCache } from 'lru-cache';

export interface RequestControl {
  readonly read: boolean;
  readonly write: boolean;
  /** The oldest entry accepted, in whole seconds; undefined: any within the TTL. */
  readonly maxAge: number | undefined;
}

const ANY: RequestControl = Object.freeze({ read: true, write: true, maxAge: undefined });

/**
 * A client sends the same few values call after call, and parsing one costs more than the rest of a
 * miss: each distinct value is parsed once. Bounded, so that clients sending every value they can think
 * of only cost a parse each.
 */
const known = new LRUCache<string, RequestControl>({ maxSize: 256, sizeCalculation: () => 1 });

export function requestControl(header: string | string[] | undefined): RequestControl {
  if (header === undefined) return ANY;
  const value = Array.isArray(header) ? header.join(', ') : header;
  let control = known.get(value);
  if (!control) {
    control = controlOf(value);
    known.set(value, control);
  }
  return control;
}

function controlOf(value: string): RequestControl {
  const asked = parse(value);
  if (asked['no-store']) return Object.freeze({ read: false, write: false, maxAge: undefined });
  return Object.freeze({ read: !asked['no-cache'], write: true, maxAge: asked['max-age'] });
}

/** An entry's age as the `age` header gives it: whole seconds since it was stored. */
export const ageOf = (storedAt: number, now: number): number =>
  Math.max(0, Math.floor((now - storedAt) / 1000));
