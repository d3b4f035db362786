/** What a family issued: it is found by its id, and only that family finds it. */
export interface Issued {
  readonly family: string;
  readonly id: string;
}

/** The most of one kind a simulator keeps, so a long-running one (a demo, a soak) stays bounded. */
export const MAX_KEPT = 10_000;

/**
 * Batches or files by id, in the order issued; past {@link MAX_KEPT} the oldest are forgotten, as if
 * the vendor had expired them.
 */
export class FamilyStore<T extends Issued> {
  private readonly byId = new Map<string, T>();

  constructor(private readonly max = MAX_KEPT) {}

  add(item: T): T {
    this.byId.set(item.id, item);
    for (const id of this.byId.keys()) {
      if (this.byId.size <= this.max) break;
      this.byId.delete(id);
    }
    return item;
  }

  /** The item `family` issued with `id`; another family's is not found. */
  get(family: string, id: string): T | undefined {
    const item = this.byId.get(id);
    return item?.family === family ? item : undefined;
  }

  /** Whether `id` is taken, by any family (a new item must not take it over). */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** `family`'s items, oldest first (the vendors list theirs the other way round); every family's without one. */
  list(family?: string): T[] {
    return [...this.byId.values()].filter((item) => family === undefined || item.family === family);
  }

  delete(id: string): boolean {
    return this.byId.delete(id);
  }

  /** Forgets them all; returns how many there were. */
  clear(): number {
    const n = this.byId.size;
    this.byId.clear();
    return n;
  }
}
