/**
 * One MCP endpoint in front of the company's tool servers (`mcp:` in gateway.yaml): `POST /mcp` and
 * `DELETE /mcp` on the gateway's port, MCP's Streamable HTTP transport on both sides through the official
 * SDK. Clients authenticate with their gateway key (the pipeline's auth, limits and access log apply);
 * each server's tools and prompts appear as `<server>__<name>`, narrowed to what the section exposes and
 * what the key and its team may use (`allowed_tools`); every tool call is relayed, metered and priced.
 *
 * The session a client holds is sealed into its session id (session-token.ts), so any instance can
 * serve any request of it and nothing of it lives in one instance's memory but the calls under way.
 */
import { randomUUID } from 'node:crypto';
import { inject } from 'tsyringe';
import type { Logger } from 'pino';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import {
  definePlugin,
  globMatcher,
  LoggerToken,
  tracedCall,
  type GatewayContext,
} from '../../../core/kit/plugin';
import {
  BudgetLedgerToken,
  type BudgetLedger,
  KeptStateToken,
  type KeptState,
  PluginMetricsToken,
  type PluginMetrics,
  RedisToken,
  type RedisLink,
  toolsAllowedBy,
  UsageStoreToken,
  type UsageStore,
} from '../../../core/kit/stage';
import {
  SealerToken,
  type Sealer,
  type ServiceEndpoint,
  type ServiceExchange,
  type ServicePlugin,
} from '../../../core/kit/service';
import { CallLedger, ToolPrices, type LedgerServices } from './call-ledger';
import { CallMetrics } from './call-metrics';
import type { CallRecorder } from './call-recorder';
import { CallsUnderWay } from './calls-under-way';
import { EndedSessions } from './ended-sessions';
import type { FrontRequest } from './front-request';
import { frontServer } from './front-server';
import { KnownTools } from './known-tools';
import { mcpOptions, type McpOptions } from './options';
import { missingSession, unknownSession } from './rpc-reply';
import { openSession, sealSession, type SessionState, type UpstreamSession } from './session-token';
import type { NamedServer } from './upstream-client';
import { checkToolPatterns } from './tools-check';
import { UpstreamLinks } from './upstream-links';

const PATH = '/mcp';

@definePlugin({ kind: 'service', name: 'mcp', options: mcpOptions })
export class McpService implements ServicePlugin {
  readonly endpoints: readonly ServiceEndpoint[] = [
    { id: 'mcp', method: 'POST', path: PATH, handle: (exchange) => this.post(exchange) },
    // The session's stream from its servers: open as long as the client keeps it, so no limit counts it.
    { id: 'mcp', method: 'GET', path: PATH, rateLimited: false, handle: (exchange) => this.listen(exchange) },
    { id: 'mcp', method: 'DELETE', path: PATH, handle: (exchange) => this.delete(exchange) },
  ];
  private readonly servers: readonly NamedServer[];
  private readonly exposed: ReadonlyMap<string, (tool: string) => boolean>;
  private readonly ledger: LedgerServices;
  private readonly calls: CallsUnderWay;
  private readonly ended: EndedSessions;
  private readonly known: KnownTools;
  private readonly metrics: CallMetrics;

  constructor(
    private readonly options: McpOptions,
    @inject(SealerToken) private readonly sealer: Sealer,
    @inject(UsageStoreToken) store: UsageStore,
    @inject(BudgetLedgerToken) budgets: BudgetLedger,
    @inject(KeptStateToken) kept: KeptState,
    @inject(LoggerToken) private readonly logger: Logger,
    @inject(PluginMetricsToken) metrics: PluginMetrics,
    @inject(RedisToken) redis: RedisLink | undefined,
  ) {
    this.servers = Object.entries(options.servers).map(([name, config]) => ({ name, config }));
    this.exposed = new Map(
      this.servers.map(({ name, config }) => {
        const globs = config.tools.map(globMatcher);
        return [name, (tool: string) => globs.some((matches) => matches(tool))] as const;
      }),
    );
    this.ledger = { store, budgets, prices: new ToolPrices(options.prices) };
    // Outlive a reload: a call, or an ended session, is older than the snapshot that sees it next.
    this.calls = kept.keep('mcp:calls', () => new CallsUnderWay(redis));
    this.ended = kept.keep('mcp:ended-sessions', () => new EndedSessions());
    this.known = kept.keep('mcp:known-tools', () => new KnownTools());
    this.metrics = new CallMetrics(metrics, this.known);
  }

  ready(): Promise<void> {
    return checkToolPatterns(this.servers, this.logger);
  }

  private async post(exchange: ServiceExchange): Promise<void> {
    const { ctx, req, res } = exchange;
    const body = parsedOrRaw(await ctx.rawBody());
    // What is not a JSON-RPC message at all gets the transport's parse error, session or none.
    const malformed = !JSONRPCMessageSchema.safeParse(body).success && !Array.isArray(body);
    const opening = isInitializeRequest(body);
    const session = opening || malformed ? undefined : this.sessionOf(ctx, res);
    if (!opening && !malformed && !session) return;
    const links = new UpstreamLinks(session);
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    try {
      if (opening) res.setHeader('mcp-session-id', sealSession(this.sealer, await this.open(ctx, links)));
      const front = frontServer(this.frontRequest(exchange, session, links, gone.signal));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await front.connect(transport);
      await transport.handleRequest(req, res, body);
      await front.close();
    } finally {
      await links.close();
    }
  }

  /**
   * GET: the session's server-to-client stream, every server's own stream merged into it (list changes,
   * log lines, resource updates). It lasts until the client closes it.
   */
  private async listen(exchange: ServiceExchange): Promise<void> {
    const { ctx, req, res } = exchange;
    const session = this.sessionOf(ctx, res);
    if (!session) return;
    const links = new UpstreamLinks(session);
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    try {
      const front = frontServer(this.frontRequest(exchange, session, links, gone.signal));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await front.connect(transport);
      const streaming = transport.handleRequest(req, res);
      await Promise.all(
        this.servers
          .filter((server) => session.servers[server.name])
          .map((server) =>
            this.relayStream(links, server, (notification) => front.notification(notification)),
          ),
      );
      await streaming;
      await front.close();
    } finally {
      await links.close();
    }
  }

  private async relayStream(
    links: UpstreamLinks,
    server: NamedServer,
    forward: (notification: ServerNotification) => Promise<void>,
  ): Promise<void> {
    try {
      const link = await links.get(server);
      link.client.fallbackNotificationHandler = (notification) => forward(notification as ServerNotification);
      await link.listen();
    } catch (e) {
      this.logger.warn({ server: server.name, err: (e as Error).message }, "MCP server's stream not relayed");
    }
  }

  private async delete({ ctx, req, res }: ServiceExchange): Promise<void> {
    const session = this.sessionOf(ctx, res);
    if (!session) return;
    const links = new UpstreamLinks(session);
    try {
      await links.terminate(this.servers);
      this.ended.end(session.id, session.expires, Date.now());
    } finally {
      await links.close();
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await transport.handleRequest(req, res);
  }

  /** The session the request's id names, or undefined once the 400 or 404 is written. */
  private sessionOf(ctx: GatewayContext, res: ServiceExchange['res']): SessionState | undefined {
    const id = ctx.headers['mcp-session-id'];
    if (typeof id !== 'string' || id === '') {
      missingSession(res);
      return undefined;
    }
    const session = openSession(this.sealer, id, ctx.key?.id ?? '', Date.now());
    if (!session || this.ended.has(session.id)) {
      unknownSession(res);
      return undefined;
    }
    return session;
  }

  /**
   * A new session: one with every configured server, opened at once. A server that cannot be reached
   * now is left out (and logged): the session reaches it per request later, so one server down does
   * not keep a client from the others.
   */
  private async open(ctx: GatewayContext, links: UpstreamLinks): Promise<SessionState> {
    const servers: Record<string, UpstreamSession> = {};
    await Promise.all(
      this.servers.map(async (server) => {
        try {
          servers[server.name] = (await links.get(server)).session();
        } catch (e) {
          this.logger.warn(
            { server: server.name, err: (e as Error).message },
            'MCP server left out of a new session',
          );
        }
      }),
    );
    const expires = Date.now() + this.options.session_ttl;
    return { id: randomUUID(), key: ctx.key?.id ?? '', servers, expires };
  }

  private frontRequest(
    exchange: ServiceExchange,
    session: SessionState | undefined,
    links: UpstreamLinks,
    gone: AbortSignal,
  ): FrontRequest {
    const { ctx } = exchange;
    return {
      servers: this.servers,
      session,
      links,
      exposes: (server, tool) => this.exposed.get(server.name)?.(tool) ?? false,
      allows: toolsAllowedBy(ctx.key, ctx.team),
      calls: this.calls,
      gone,
      recorder: this.recorder(exchange),
      known: this.known,
      traced: (name, attributes, work) => tracedCall(ctx, name, attributes, work),
      logger: this.logger,
    };
  }

  /** Each call's usage record, its metrics, and what the request's access line and span say it called. */
  private recorder(exchange: ServiceExchange): CallRecorder {
    const ledger = new CallLedger(exchange.ctx, this.ledger);
    return {
      ended: (call) => {
        ledger.ended(call);
        this.metrics.ended(call);
        exchange.called({
          name: call.name,
          upstream: call.server,
          outcome: call.outcome,
          upstreamMs: call.ms,
        });
      },
    };
  }
}

/** The body as JSON, or its text when it is not JSON: the SDK's transport then answers the parse error. */
function parsedOrRaw(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
