/**
 * The running Upstream objects, shared by every configuration snapshot that lists them unchanged, so a
 * reload keeps their keep-alive sockets and an upstream is closed only when no snapshot in use lists it.
 */
import type { Upstream } from './upstream';

interface Pooled {
  readonly upstream: Upstream;
  /** The entry's settings as JSON: a changed entry is a new Upstream. */
  readonly settings: string;
  users: number;
}

export class UpstreamPool {
  private readonly pooled = new Map<Upstream, Pooled>();

  /** The upstream of these settings, made by `make` unless a snapshot in use has it; counted as used. */
  take(name: string, settings: string, make: () => Upstream): Upstream {
    for (const entry of this.pooled.values()) {
      if (entry.upstream.name === name && entry.settings === settings) {
        entry.users++;
        return entry.upstream;
      }
    }
    const upstream = make();
    this.pooled.set(upstream, { upstream, settings, users: 1 });
    return upstream;
  }

  /** A snapshot no longer in use gives its upstreams back; one nobody uses is closed. */
  release(upstreams: readonly Upstream[]): void {
    for (const upstream of upstreams) {
      const entry = this.pooled.get(upstream);
      if (!entry || --entry.users > 0) continue;
      this.pooled.delete(upstream);
      upstream.close();
    }
  }

  closeAll(): void {
    for (const { upstream } of this.pooled.values()) upstream.close();
    this.pooled.clear();
  }
}
