/**
 * GET: a session's server-to-client stream. Behind it, each server the session has opens its own, and
 * what the servers send there (list changes, log lines, resource updates) is passed on. It lasts until
 * the client closes it.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from 'pino';
import type { SessionState } from './session-token';
import type { NamedServer } from './upstream-client';
import type { UpstreamLinks } from './upstream-links';

export async function relayServerStreams(
  front: Server,
  session: SessionState,
  servers: readonly NamedServer[],
  links: UpstreamLinks,
  logger: Logger,
): Promise<void> {
  await Promise.all(
    servers
      .filter((server) => session.servers[server.name])
      .map(async (server) => {
        try {
          const link = await links.get(server);
          link.client.fallbackNotificationHandler = (notification) => front.notification(notification);
          await link.listen();
        } catch (e) {
          logger.warn({ server: server.name, err: (e as Error).message }, "MCP server's stream not relayed");
        }
      }),
  );
}
