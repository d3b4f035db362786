/**
 * Keeps leases alive while they are held: a lease is a member in one or more sorted sets whose score is
 * its expiry, and every third of a lease all held members are renewed with one call. The timer runs only
 * while something is held, so an idle process has none. What the renewal does on the server (a script,
 * which may also extend the sets' own expiry) is the owner's: it gets the sets and members to renew.
 */

/** One lease: its member, and the sorted sets it is in. */
export interface Lease {
  readonly member: string;
  readonly sets: readonly string[];
}

/** A renewal call's keys (each set, once per member in it) and arguments (the lease, then the members). */
export interface Renewal {
  readonly keys: string[];
  readonly args: (string | number)[];
}

export class LeaseRenewer<L extends Lease = Lease> {
  private readonly held = new Map<string, L>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly leaseMs: number,
    /** Renews every lease in `renewal`; its failure is left for the next round, a third of a lease on. */
    private readonly renew: (renewal: Renewal) => Promise<unknown>,
  ) {}

  /** The lease held under `id`, if any. */
  get(id: string): L | undefined {
    return this.held.get(id);
  }

  hold(id: string, lease: L): void {
    this.held.set(id, lease);
    if (this.timer) return;
    this.timer = setInterval(() => void this.renewAll(), Math.max(1, this.leaseMs / 3));
    this.timer.unref();
  }

  /** Stops renewing `id`'s lease; false when none was held under it. */
  release(id: string): boolean {
    if (!this.held.delete(id)) return false;
    if (this.held.size === 0) this.stop();
    return true;
  }

  /** Stops the timer; leases still held lapse on the server with their expiry. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renewAll(): Promise<void> {
    const renewal: Renewal = { keys: [], args: [this.leaseMs] };
    for (const { member, sets } of this.held.values())
      for (const set of sets) {
        renewal.keys.push(set);
        renewal.args.push(member);
      }
    await this.renew(renewal).catch(() => undefined);
  }
}
