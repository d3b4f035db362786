/**
 * The ids (visible prefixes) of every key, so that a key presented from an address past its failed-auth
 * limit can be refused without a store lookup when no key has its id: a guessed key's random id matches
 * none. Read from the store in full, on first need and then at most once per `minGapMs`, and only while
 * such addresses present ids not seen yet: a gateway nobody floods never lists its keys.
 *
 * A key created a moment ago on another instance is never refused for being unseen: a request waits
 * for a listing that began after it arrived, so the listing includes every key created before it.
 */
export class KnownKeyIds {
  private readonly ids = new Set<string>();
  /** When the newest finished listing began (its view of the store is at least that recent). */
  private listedFrom = -Infinity;
  private lastStart = -Infinity;
  private listing: Promise<void> | undefined;

  constructor(
    private readonly listIds: () => Promise<Iterable<string>>,
    private readonly minGapMs: number,
    // Sub-millisecond: a listing begun in the same millisecond as a request may still predate it.
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /**
   * Whether some key has `id`, as of a listing begun after `since` (`performance.now()` when the request
   * arrived) when this instance had not seen it.
   */
  async has(id: string, since: number): Promise<boolean> {
    while (!this.ids.has(id) && this.listedFrom <= since) await this.refresh();
    return this.ids.has(id);
  }

  /** A key this instance just created (or read): known at once. */
  add(id: string): void {
    this.ids.add(id);
  }

  /** One listing at a time, each at least `minGapMs` after the last began: a flood shares them. */
  private refresh(): Promise<void> {
    this.listing ??= this.list().finally(() => (this.listing = undefined));
    return this.listing;
  }

  private async list(): Promise<void> {
    const wait = this.lastStart + this.minGapMs - this.clock();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const start = (this.lastStart = this.clock());
    // Only added to: a deleted key's id left here costs a lookup by id that finds nothing.
    for (const id of await this.listIds()) this.ids.add(id);
    this.listedFrom = start;
  }
}
