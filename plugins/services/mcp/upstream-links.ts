/**
 * The upstream servers one client request reaches, each connected once and closed with the request: in
 * the session the client's id carries, or, for a server that session has none with (down when the
 * session began, or added by a reload since), in a session of its own that ends with the request.
 */
import { connectUpstream, type NamedServer, type UpstreamLink } from './upstream-client';
import type { SessionState } from './session-token';

export class UpstreamLinks {
  private readonly links = new Map<string, Promise<UpstreamLink>>();
  /** Sessions opened for this request alone: ended with it. */
  private readonly ephemeral = new Set<string>();

  /** `session` undefined: the request opens one, and every server's session is kept for it. */
  constructor(private readonly session: SessionState | undefined) {}

  /** The link to `server`; rejects with an RpcError naming it when it cannot be reached. */
  get(server: NamedServer): Promise<UpstreamLink> {
    let link = this.links.get(server.name);
    if (!link) {
      const kept = this.session?.servers[server.name];
      if (this.session && !kept) this.ephemeral.add(server.name);
      link = connectUpstream(server, kept);
      // A failed connection is this request's error, not one to keep handing out.
      link.catch(() => this.links.delete(server.name));
      this.links.set(server.name, link);
    }
    return link;
  }

  /** Ends the session's upstream sessions at their servers (the client ended it: DELETE). */
  async terminate(servers: readonly NamedServer[]): Promise<void> {
    await Promise.all(
      servers.map(async (server) => {
        if (!this.session?.servers[server.name]) return;
        const link = await this.get(server).catch(() => undefined);
        await link?.terminate().catch(() => undefined);
      }),
    );
  }

  /** Closes every connection; sessions opened for this request alone are ended at their servers. */
  async close(): Promise<void> {
    const open = [...this.links.entries()];
    this.links.clear();
    await Promise.all(
      open.map(async ([name, pending]) => {
        const link = await pending.catch(() => undefined);
        if (!link) return;
        if (this.ephemeral.has(name)) await link.terminate().catch(() => undefined);
        await link.close().catch(() => undefined);
      }),
    );
  }
}
