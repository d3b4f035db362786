/**
 * Where a client's session is opened, found and ended: its id checked (sealed by this gateway, for this
 * key, not expired, not ended), a new one opened with every configured server, and an ended one
 * remembered. What a request without a usable session is answered is written here too.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { GatewayContext } from '../../../core/kit/plugin';
import type { Sealer } from '../../../core/kit/service';
import type { EndedSessions } from './ended-sessions';
import { missingSession, unknownSession } from './rpc-reply';
import { openSession, sealSession, type SessionState, type UpstreamSession } from './session-token';
import type { NamedServer } from './upstream-client';
import type { UpstreamLinks } from './upstream-links';

export interface GateParts {
  readonly sealer: Sealer;
  readonly ended: EndedSessions;
  readonly servers: readonly NamedServer[];
  /** How long a session lasts from its `initialize`, in ms. */
  readonly ttl: number;
  readonly logger: Logger;
}

export class SessionGate {
  constructor(private readonly parts: GateParts) {}

  /** The session the request's id names, or undefined once the 400 or 404 is written. */
  sessionOf(ctx: GatewayContext, res: ServerResponse): SessionState | undefined {
    const id = ctx.headers['mcp-session-id'];
    if (typeof id !== 'string' || id === '') {
      missingSession(res);
      return undefined;
    }
    const session = openSession(this.parts.sealer, id, ctx.key?.id ?? '', Date.now());
    if (!session || this.parts.ended.has(session.id)) {
      unknownSession(res);
      return undefined;
    }
    return session;
  }

  /**
   * A new session, its id: one with every configured server, opened at once. A server that cannot be
   * reached now is left out (and logged): the session reaches it per request later, so one server down
   * does not keep a client from the others.
   */
  async open(ctx: GatewayContext, links: UpstreamLinks): Promise<string> {
    const servers: Record<string, UpstreamSession> = {};
    await Promise.all(
      this.parts.servers.map(async (server) => {
        try {
          servers[server.name] = (await links.get(server)).session();
        } catch (e) {
          const err = (e as Error).message;
          this.parts.logger.warn({ server: server.name, err }, 'MCP server left out of a new session');
        }
      }),
    );
    const expires = Date.now() + this.parts.ttl;
    return sealSession(this.parts.sealer, { id: randomUUID(), key: ctx.key?.id ?? '', servers, expires });
  }

  /** Ends the session at its servers, and for good here. */
  async end(session: SessionState, links: UpstreamLinks): Promise<void> {
    await links.terminate(this.parts.servers);
    this.parts.ended.end(session.id, session.expires, Date.now());
  }
}
