/**
 * Ids kept in order, for pages read by cursor: a page starts where its cursor sorts (a binary search)
 * and reads on from there, where sorting every id per page grew with the store. Adding or removing an
 * id moves the ids after it, a memory move of some hundred kilobytes at a hundred thousand ids.
 */
export class SortedIds {
  private constructor(private readonly ids: string[]) {}

  /** The ids given, sorted once (adding them one by one would move the array for each). */
  static of(ids: Iterable<string> = []): SortedIds {
    return new SortedIds([...new Set(ids)].sort());
  }

  get size(): number {
    return this.ids.length;
  }

  add(id: string): void {
    const at = this.firstAfter(id, true);
    if (this.ids[at] !== id) this.ids.splice(at, 0, id);
  }

  delete(id: string): void {
    const at = this.firstAfter(id, true);
    if (this.ids[at] === id) this.ids.splice(at, 1);
  }

  /** The ids that sort after `after` (all without it), in order. */
  *after(after: string | undefined): Generator<string> {
    for (let at = after === undefined ? 0 : this.firstAfter(after, false); at < this.ids.length; at++)
      yield this.ids[at]!;
  }

  /** The index of the first id above `id`, or at it when `inclusive`. */
  private firstAfter(id: string, inclusive: boolean): number {
    let [low, high] = [0, this.ids.length];
    while (low < high) {
      const mid = (low + high) >>> 1;
      const below = inclusive ? this.ids[mid]! < id : this.ids[mid]! <= id;
      if (below) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
