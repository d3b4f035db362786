/**
 * What the client's `Cache-Control` asks of the cache, as HTTP has it (RFC 9111 §5.2.1): `no-store`
 * neither reads nor writes, `no-cache` writes a fresh answer without reading one, `max-age=N` accepts an
 * entry at most N seconds old (its `age`, in whole seconds).
 */
import { parse } from 'cache-control-parser';

export interface RequestControl {
  readonly read: boolean;
  readonly write: boolean;
  /** The oldest entry accepted, in whole seconds; undefined: any within the TTL. */
  readonly maxAge: number | undefined;
}

const ANY: RequestControl = Object.freeze({ read: true, write: true, maxAge: undefined });

export function requestControl(header: string | string[] | undefined): RequestControl {
  if (header === undefined) return ANY;
  const asked = parse(Array.isArray(header) ? header.join(', ') : header);
  if (asked['no-store']) return { read: false, write: false, maxAge: undefined };
  return { read: !asked['no-cache'], write: true, maxAge: asked['max-age'] };
}

/** An entry's age as the `age` header gives it: whole seconds since it was stored. */
export const ageOf = (storedAt: number, now: number): number =>
  Math.max(0, Math.floor((now - storedAt) / 1000));
