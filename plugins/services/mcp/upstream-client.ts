/**
 * The gateway as a client of one configured tool server, for one request of a client's session: a new
 * session (at the client's `initialize`), or the session the client's id carries, resumed without a new
 * handshake. Only the server's own configured headers are sent: the client's gateway key never leaves
 * the gateway, and the server's credential never reaches the client.
 */
import { randomInt } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from './options';
import type { UpstreamSession } from './session-token';

/** How the gateway introduces itself to the servers it fronts. */
export const GATEWAY_INFO = { name: 'model-gateway', version: '1.0.0' } as const;

/** A configured server, by its name in gateway.yaml. */
export interface NamedServer {
  readonly name: string;
  readonly config: ServerConfig;
}

/** A client connected to one server, and the session it is in. */
export interface UpstreamLink {
  readonly server: NamedServer;
  readonly client: Client;
  /** The session, as the client's session id keeps it. */
  session(): UpstreamSession;
  /**
   * Opens the server's stream of messages to the client (GET); what it sends arrives at the client's
   * notification handlers. A server without one answers 405, which is no error.
   */
  listen(): Promise<void>;
  /** Ends the session at the server (DELETE), where it keeps one. */
  terminate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The SDK's client transport, as one request of a client's session uses it:
 * - it opens the server's stream to the client (GET) only when asked (`listen`): the SDK would open one
 *   after every handshake, which the gateway's own handshakes (a new session, the tools check) do not
 *   want, and a server takes one such stream per session;
 * - closed, it first waits for the notifications it is still sending: the `notifications/cancelled` the
 *   SDK sends when a call is cancelled or times out would otherwise be cut off with the request, and
 *   the server would never learn to stop.
 */
class UpstreamTransport extends StreamableHTTPClientTransport {
  private listening = false;
  private readonly sending = new Set<Promise<void>>();

  constructor(server: NamedServer, session: UpstreamSession | undefined) {
    super(new URL(server.config.url), {
      requestInit: { headers: { ...server.config.headers } },
      // An empty id resumes a server that keeps no sessions: nothing is sent, and no handshake is made.
      ...(session ? { sessionId: session.id } : {}),
      // A stream the server broke off is an error for the call, not something to retry behind its back.
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1,
        maxReconnectionDelay: 1,
        reconnectionDelayGrowFactor: 1,
      },
      // "No stream offered" (405), which the SDK takes quietly, for a GET nobody asked for.
      fetch: (url, init) =>
        init?.method === 'GET' && !this.listening
          ? Promise.resolve(new Response(null, { status: 405 }))
          : fetch(url, init),
    });
    if (session) this.setProtocolVersion(session.version);
  }

  /** Opens the server's stream to the client; resuming from no event id opens it afresh. */
  listen(): Promise<void> {
    this.listening = true;
    return this.resumeStream('');
  }

  override send(...args: Parameters<StreamableHTTPClientTransport['send']>): Promise<void> {
    const sent = super.send(...args);
    if (!('id' in args[0])) {
      const settled = sent.catch(() => undefined);
      this.sending.add(settled);
      void settled.then(() => this.sending.delete(settled));
    }
    return sent;
  }

  override async close(): Promise<void> {
    await Promise.all(this.sending);
    await super.close();
  }
}

/**
 * Connects to `server`: resuming `session`, or opening a new one (the handshake, under the server's
 * timeout). Throws an McpError naming the server when it cannot be reached or does not speak MCP.
 */
export async function connectUpstream(server: NamedServer, session?: UpstreamSession): Promise<UpstreamLink> {
  const transport = new UpstreamTransport(server, session);
  const client = new Client(GATEWAY_INFO, { capabilities: {} });
  // The SDK numbers a client's requests from 0. The gateway makes a client per request of a session that
  // lasts many requests (on many instances), so ids would repeat within the server's session, which the
  // specification forbids, and a request 0 could not be cancelled (the SDK's servers ignore a falsy id).
  // Each client starts at a random point of a range no session exhausts instead.
  Object.assign(client, { _requestMessageId: randomInt(1, 2 ** 47) });
  try {
    await client.connect(transport, { timeout: server.config.timeout });
  } catch (e) {
    await client.close().catch(() => undefined);
    throw upstreamError(server, e);
  }
  return {
    server,
    client,
    session: () => ({
      id: transport.sessionId ?? '',
      version: transport.protocolVersion ?? session?.version ?? '',
    }),
    listen: () => transport.listen(),
    terminate: () => (transport.sessionId ? transport.terminateSession() : Promise.resolve()),
    close: () => client.close(),
  };
}

/**
 * A JSON-RPC error as the client is sent it: the SDK answers a request whose handler threw with the
 * error's `code`, `message` and `data`. (An McpError would put its "MCP error <code>:" prefix into the
 * message a second time.)
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * Whether `e` is the server's own answer to the request (an unknown tool, bad arguments: a JSON-RPC
 * error it sent), rather than the SDK's word that no answer came (a timeout, a closed connection).
 */
export const serverAnswered = (e: unknown): e is McpError =>
  e instanceof McpError &&
  e.code !== (ErrorCode.RequestTimeout as number) &&
  e.code !== (ErrorCode.ConnectionClosed as number);

/** What a client is told of a server's failure: a JSON-RPC error naming the server, never a hang. */
export function upstreamError(server: NamedServer, e: unknown): RpcError {
  if (e instanceof RpcError) return e;
  // Relayed as the server said it.
  if (serverAnswered(e)) return new RpcError(e.code, e.message.replace(`MCP error ${e.code}: `, ''), e.data);
  const name = `MCP server "${server.name}"`;
  if (e instanceof McpError && e.code === (ErrorCode.RequestTimeout as number))
    return new RpcError(
      ErrorCode.RequestTimeout,
      `${name} did not answer within ${server.config.timeout} ms`,
    );
  const reason = e instanceof Error ? e.message : String(e);
  return new RpcError(ErrorCode.InternalError, `${name} failed: ${reason}`);
}
