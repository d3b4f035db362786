/**
 * What only the servers can tell of the `mcp:` section: whether each of a server's `tools` patterns
 * matches one of its tools. A pattern that matches nothing is a mistake the file alone cannot show (a
 * typo, a renamed tool); it refuses the configuration, at start or at reload, naming the entry. A server
 * that cannot be reached now is not checked (and is logged): a server down does not stop the gateway.
 */
import type { Logger } from 'pino';
import { ConfigError, globMatcher } from '../../../core/kit/plugin';
import { connectUpstream, type NamedServer } from './upstream-client';

/** A server that hangs delays a start or a reload by no more than this. */
const CHECK_TIMEOUT_MS = 5_000;

export async function checkToolPatterns(servers: readonly NamedServer[], logger: Logger): Promise<void> {
  const problems = await Promise.all(servers.map((server) => patternProblems(server, logger)));
  const all = problems.flat();
  if (all.length > 0) throw ConfigError.of(all);
}

async function patternProblems(
  server: NamedServer,
  logger: Logger,
): Promise<{ path: string; reason: string }[]> {
  const checking = {
    ...server,
    config: { ...server.config, timeout: Math.min(server.config.timeout, CHECK_TIMEOUT_MS) },
  };
  let names: string[];
  try {
    const link = await connectUpstream(checking);
    try {
      names = (await link.client.listTools({}, { timeout: checking.config.timeout })).tools.map(
        (t) => t.name,
      );
    } finally {
      await link.terminate().catch(() => undefined);
      await link.close();
    }
  } catch (e) {
    logger.warn(
      { server: server.name, err: (e as Error).message },
      "MCP server's tools not checked: it did not answer",
    );
    return [];
  }
  return server.config.tools.flatMap((pattern, i) =>
    names.some(globMatcher(pattern))
      ? []
      : [
          {
            path: `mcp.servers.${server.name}.tools[${i}]`,
            reason: `'${pattern}' matches none of the server's tools (${names.join(', ') || 'it lists none'})`,
          },
        ],
  );
}
