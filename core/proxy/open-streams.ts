/**
 * The streams open now, and how many each key has: what shutdown ends, and what a revoked key's check
 * looks for.
 *
 * An array with swap-removal and a count per key, not a Set of relays. Streams enter and leave such a
 * Set thousands of times a second, and V8 rebuilds its table every few dozen changes, leaving each old
 * table linked to its successor. Once a major collection has moved the live table to the old generation,
 * that link keeps every later table, with every relay and request in it, alive through young-generation
 * collections, so each stream's objects were promoted. Under saturation a scavenge then took 7 ms instead
 * of 2.5, and the old generation filled every second. An array drops a removed stream's slot in place.
 */
import type { StreamRelay } from './stream-relay';

/** One open stream's place in the list; `add` gives it, `remove` takes it back. */
export interface OpenStream {
  readonly relay: StreamRelay;
  readonly keyId: string | undefined;
  /** Its index in the list; -1 once removed. */
  slot: number;
}

export class OpenStreams {
  private readonly open: OpenStream[] = [];
  /** Keys with at least one stream open; a key leaves when its last stream ends. */
  private readonly perKey = new Map<string, number>();

  get size(): number {
    return this.open.length;
  }

  add(relay: StreamRelay, keyId: string | undefined): OpenStream {
    const entry: OpenStream = { relay, keyId, slot: this.open.length };
    this.open.push(entry);
    if (keyId !== undefined) this.perKey.set(keyId, (this.perKey.get(keyId) ?? 0) + 1);
    return entry;
  }

  /** Takes `entry` out; a second call for it does nothing. */
  remove(entry: OpenStream): void {
    if (entry.slot < 0) return;
    const last = this.open.pop()!;
    if (last !== entry) {
      this.open[entry.slot] = last;
      last.slot = entry.slot;
    }
    entry.slot = -1;
    const { keyId } = entry;
    if (keyId === undefined) return;
    const left = this.perKey.get(keyId)! - 1;
    if (left === 0) this.perKey.delete(keyId);
    else this.perKey.set(keyId, left);
  }

  /** The relays open now: a copy, so ending them (which removes them) is safe while it is read. */
  relays(keyId?: string): StreamRelay[] {
    const of = keyId === undefined ? this.open : this.open.filter((s) => s.keyId === keyId);
    return of.map((s) => s.relay);
  }

  hasKey(keyId: string): boolean {
    return this.perKey.has(keyId);
  }

  keys(): string[] {
    return [...this.perKey.keys()];
  }
}
