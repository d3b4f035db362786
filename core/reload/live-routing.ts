/**
 * The snapshot new requests get, and the count of requests still running on each older one. A request
 * takes the current snapshot when it arrives and gives it back after its finish phase; a replaced
 * snapshot is retired (its upstreams given back to the pool) once its last request has given it back.
 */
import type { Snapshot } from './snapshot';

/** A snapshot with the number of requests using it: what a request holds until it is done. */
export interface SnapshotLease {
  readonly snapshot: Snapshot;
  users: number;
}

export class LiveRouting {
  private active: SnapshotLease;
  private readonly retiring = new Set<SnapshotLease>();

  constructor(
    first: Snapshot,
    private readonly retire: (snapshot: Snapshot) => void,
  ) {
    this.active = { snapshot: first, users: 0 };
  }

  get current(): Snapshot {
    return this.active.snapshot;
  }

  /** The current snapshot, held until `release`. */
  acquire(): SnapshotLease {
    this.active.users++;
    return this.active;
  }

  release(lease: SnapshotLease): void {
    if (--lease.users === 0 && lease !== this.active && this.retiring.delete(lease)) {
      this.retire(lease.snapshot);
    }
  }

  /** Serves `next` from the next request on; the replaced one retires when its requests are done. */
  swap(next: Snapshot): void {
    const old = this.active;
    this.active = { snapshot: next, users: 0 };
    if (old.users === 0) this.retire(old.snapshot);
    else this.retiring.add(old);
  }

  /** Snapshots replaced but still serving requests. */
  get draining(): number {
    return this.retiring.size;
  }
}
