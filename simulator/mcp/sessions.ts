/**
 * The MCP server's sessions, as the SDK's stateful Streamable HTTP example keeps them: an initialize
 * request opens one (a transport of its own, with a fresh server behind it), its id maps to that transport,
 * every later request names it in `Mcp-Session-Id`, GET opens its server-to-client stream and DELETE ends it.
 * One per simulator, so a simulator's close ends its sessions, and with them the calls still running.
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Exchange } from '../exchange';
import { McpErrors } from './errors';
import { ToolCalls } from './tool-calls';
import { toolServer } from './tool-server';

/**
 * Sessions kept open at most: a client that never ends its session (DELETE) would otherwise hold a server
 * for as long as the simulator runs. Past it, the oldest is closed.
 */
export const MAX_SESSIONS = 1000;

/** The session id a request names, if any. */
function sessionOf(ex: Exchange): string | undefined {
  const id = ex.req.headers['mcp-session-id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export class McpSessions {
  /** Every tool call the sessions ran. */
  readonly calls = new ToolCalls();
  private readonly open = new Map<string, StreamableHTTPServerTransport>();

  constructor(private readonly maxSessions = MAX_SESSIONS) {}

  /** The ids of the open sessions, oldest first. */
  ids(): string[] {
    return [...this.open.keys()];
  }

  /**
   * POST: a message of an open session, or the initialize request that opens one. The body was read (and
   * logged) by the router, so the transport is handed it parsed.
   */
  readonly post = async (ex: Exchange): Promise<void> => {
    const id = sessionOf(ex);
    if (id !== undefined) return this.session(id).handleRequest(ex.req, ex.res, ex.body);
    if (!isInitializeRequest(ex.body)) throw McpErrors.noSession();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Stored once the id exists, before the answer goes out: the client's next request finds it.
      onsessioninitialized: (opened): void => this.keep(opened, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.open.delete(transport.sessionId);
    };
    await toolServer(this.calls).connect(transport);
    await transport.handleRequest(ex.req, ex.res, ex.body);
  };

  /** GET (the session's server-to-client stream) and DELETE (its end): the transport answers both. */
  readonly ofSession = async (ex: Exchange): Promise<void> => {
    const id = sessionOf(ex);
    if (id === undefined) throw McpErrors.noSession();
    await this.session(id).handleRequest(ex.req, ex.res);
  };

  /** Ends every session: their streams close and their running calls are aborted. */
  async closeAll(): Promise<void> {
    const transports = [...this.open.values()];
    this.open.clear();
    await Promise.all(transports.map((transport) => transport.close()));
  }

  private keep(id: string, transport: StreamableHTTPServerTransport): void {
    this.open.set(id, transport);
    if (this.open.size <= this.maxSessions) return;
    const [oldest] = this.open.values(); // a Map iterates in insertion order
    // Its onclose removes it. Closing only ends its streams; a failure must not end the process.
    oldest?.close().catch((e: unknown) => console.error('simulator: closing an MCP session failed', e));
  }

  private session(id: string): StreamableHTTPServerTransport {
    const transport = this.open.get(id);
    if (!transport) throw McpErrors.unknownSession();
    return transport;
  }
}
