/**
 * What the servers listed to this instance: each one's tools, so the metrics label a call with its tool
 * only when the server has one of that name (a client calling made-up names through a `*` the section
 * allows cannot grow the metrics without bound), and which server listed each resource URI, to read it
 * there. Kept across reloads.
 */
import { LRUCache } from 'lru-cache';

export const UNLISTED = '_unlisted';

export class Listed {
  private readonly byServer = new Map<string, ReadonlySet<string>>();
  /** Bounded: a server may list many resources, and only the recent ones are read. */
  private readonly owners = new LRUCache<string, string>({ max: 10_000 });

  tools(server: string, tools: readonly string[]): void {
    this.byServer.set(server, new Set(tools));
  }

  owns(uri: string, server: string): void {
    this.owners.set(uri, server);
  }

  ownerOf(uri: string): string | undefined {
    return this.owners.get(uri);
  }

  /** `tool`, or UNLISTED when its server never listed it here. */
  label(server: string, tool: string): string {
    return this.byServer.get(server)?.has(tool) ? tool : UNLISTED;
  }
}
