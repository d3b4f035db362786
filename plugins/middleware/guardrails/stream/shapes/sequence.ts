/**
 * The Responses API numbers a stream's events (`sequence_number`), rising. An event the guard drops
 * leaves a gap, which a client accepts; one it adds takes the number after the last one sent. When that
 * is the number of the upstream's event coming next (no gap to use), that event and every one after it
 * go out one later, rewritten: the only way to fit an event in without a number going back or twice.
 * It happens at a run's end at most, when held text is left to release, so few events are rewritten.
 */
import type { JsonObject } from '../../../../../core/kit/json';

export class Sequence {
  /** The number of the last event sent; -1 before any. */
  private last = -1;
  /** How much later than the upstream numbered them its events now go out. */
  private shift = 0;
  /** The upstream's number of the event being read. */
  private current: number | undefined;

  /** The upstream's event `payload` is being read: events added now go before it. */
  reading(payload: JsonObject): void {
    this.current = typeof payload.sequence_number === 'number' ? payload.sequence_number : undefined;
  }

  /** The number of an event the guard adds: after the last one sent, and before the event being read. */
  added(): number {
    const number = ++this.last;
    if (this.current !== undefined && this.current + this.shift <= number)
      this.shift = number + 1 - this.current;
    return number;
  }

  /** The upstream's event `payload` goes out: renumbered when it has to go later. True when it changed. */
  passing(payload: JsonObject): boolean {
    const number = payload.sequence_number;
    if (typeof number !== 'number') return false;
    this.last = number + this.shift;
    if (this.shift === 0) return false;
    payload.sequence_number = this.last;
    return true;
  }
}
