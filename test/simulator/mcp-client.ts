import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RunningSimulator } from '../../simulator/server';
import type { LoggedRequest } from '../../simulator/request-log';
import { until } from '../helpers/wait';

/** An MCP client connected to a simulator's `/mcp`, with its transport (for its session id). */
export interface Connected {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

/** Connects the SDK's client to `sim`'s MCP server, sending `headers` on every request. */
export async function connectMcp(
  sim: RunningSimulator,
  headers: Record<string, string> = {},
): Promise<Connected> {
  const client = new Client({ name: 'simulator-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${sim.url}/mcp`), {
    requestInit: { headers },
  });
  await client.connect(transport);
  return { client, transport };
}

/** The simulator's log entries for `/mcp`, oldest first. */
export const mcpRequests = (sim: RunningSimulator): LoggedRequest[] =>
  sim.log.list().filter((entry) => entry.path === '/mcp');

/**
 * Waits for the GET that opens the session's server-to-client stream, which the client sends unawaited
 * once initialized: a test that counts requests starts after it.
 */
export async function untilStreamAsked(sim: RunningSimulator, session: string | undefined): Promise<void> {
  await until(
    () => mcpRequests(sim).filter((e) => e.method === 'GET' && e.headers['mcp-session-id'] === session),
    (gets) => gets.length > 0,
    { what: `the GET stream of session ${session}` },
  );
}

/** The text of a tool result's first content item (the SDK types a result as one of two shapes). */
export function firstText(result: unknown): string | undefined {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  return content?.[0]?.type === 'text' ? content[0].text : undefined;
}
