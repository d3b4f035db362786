/**
 * A client of the gateway's MCP endpoint as an agent would have one: the official SDK's Client over its
 * Streamable HTTP transport, with the gateway key as Bearer; closed when the test ends.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Teardown } from './gateway';

export interface McpSession {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

/**
 * Connects to `gatewayUrl`'s `/mcp` with `key` (undefined: no Authorization header). Without `options.sessionId` the client opens a session
 * (`initialize`); with it, it joins that session as it is, sending nothing until its first request.
 */
export async function mcpSession(
  t: Teardown,
  gatewayUrl: string,
  key: string | undefined,
  options: Omit<StreamableHTTPClientTransportOptions, 'requestInit'> & { protocolVersion?: string } = {},
): Promise<McpSession> {
  const { protocolVersion, ...rest } = options;
  const transport = new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), {
    ...rest,
    requestInit: { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } },
  });
  if (protocolVersion !== undefined) transport.setProtocolVersion(protocolVersion);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  return { client, transport };
}

/** A new session's client on a test gateway, with its key (the gateway's own unless given). */
export async function gatewayClient(
  t: Teardown,
  gw: { readonly url: string; readonly key: string },
  key = gw.key,
): Promise<Client> {
  return (await mcpSession(t, gw.url, key)).client;
}

/** The names of the tools the session lists, sorted. */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}
