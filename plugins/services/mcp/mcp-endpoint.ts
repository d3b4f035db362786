/**
 * The MCP endpoint's work, loaded only when `mcp:` is configured (index.ts): it brings in the MCP SDK,
 * which a gateway without the section never loads.
 *
 * The session a client holds is sealed into its session id (session-token.ts), so any instance can
 * serve any request of it and nothing of it lives in one instance's memory but the calls under way.
 */
import type { Logger } from 'pino';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { globMatcher, tracedCall, type GatewayContext } from '../../../core/kit/plugin';
import { budgetRefusal, budgetSubjectsOf, toolsAllowedBy } from '../../../core/kit/stage';
import {
  type BudgetLedger,
  type KeptState,
  type PluginMetrics,
  type RedisLink,
  type UsageStore,
} from '../../../core/kit/tokens';
import type { Sealer, ServiceExchange } from '../../../core/kit/service';
import { CallLedger, ToolPrices, type LedgerServices } from './call-ledger';
import { CallMetrics } from './call-metrics';
import type { CallRecorder } from './call-recorder';
import { CallsUnderWay } from './calls-under-way';
import { EndedSessions } from './ended-sessions';
import type { FrontRequest } from './front-request';
import { frontServer } from './front-server';
import { Listed } from './listed';
import type { McpOptions } from './options';
import { SessionGate } from './session-gate';
import { relayServerStreams } from './session-stream';
import type { SessionState } from './session-token';
import { RpcError, type NamedServer } from './upstream-client';
import { splitName } from './tool-names';
import { checkToolPatterns } from './tools-check';
import { UpstreamLinks } from './upstream-links';

/** What the endpoint is built with: its section, and the gateway's services the plugin was given. */
export interface EndpointParts {
  readonly options: McpOptions;
  readonly sealer: Sealer;
  readonly store: UsageStore;
  readonly budgets: BudgetLedger;
  readonly kept: KeptState;
  readonly logger: Logger;
  readonly metrics: PluginMetrics;
  readonly redis: RedisLink | undefined;
}

export class McpEndpoint {
  private readonly servers: readonly NamedServer[];
  private readonly exposed: ReadonlyMap<string, (tool: string) => boolean>;
  private readonly ledger: LedgerServices;
  private readonly calls: CallsUnderWay;
  private readonly gate: SessionGate;
  private readonly listed: Listed;
  private readonly metrics: CallMetrics;
  private readonly logger: Logger;

  constructor({ options, sealer, store, budgets, kept, logger, metrics, redis }: EndpointParts) {
    this.logger = logger;
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
    const ended = kept.keep('mcp:ended-sessions', () => new EndedSessions());
    this.gate = new SessionGate({ sealer, ended, servers: this.servers, ttl: options.session_ttl, logger });
    this.listed = kept.keep('mcp:listed', () => new Listed());
    this.metrics = new CallMetrics(metrics, this.listed);
  }

  /** Whether each server's `tools` patterns match its tools (tools-check.ts). */
  checkTools(): Promise<void> {
    return checkToolPatterns(this.servers, this.logger);
  }

  async post(exchange: ServiceExchange): Promise<void> {
    const { ctx, req, res } = exchange;
    const body = parsedOrRaw(await ctx.rawBody());
    // What is not a JSON-RPC message at all gets the transport's parse error, session or none.
    const malformed = !JSONRPCMessageSchema.safeParse(body).success && !Array.isArray(body);
    const opening = isInitializeRequest(body);
    const session = opening || malformed ? undefined : this.gate.sessionOf(ctx, res);
    if (!opening && !malformed && !session) return;
    const links = new UpstreamLinks(session);
    try {
      if (opening) res.setHeader('mcp-session-id', await this.gate.open(ctx, links));
      const front = frontServer(this.frontRequest(exchange, session, links));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await front.connect(transport);
      await transport.handleRequest(req, res, body);
      await front.close();
    } finally {
      await links.close();
    }
  }

  /** GET: the session's stream from its servers (session-stream.ts). */
  async listen(exchange: ServiceExchange): Promise<void> {
    const { ctx, req, res } = exchange;
    const session = this.gate.sessionOf(ctx, res);
    if (!session) return;
    const links = new UpstreamLinks(session);
    try {
      const front = frontServer(this.frontRequest(exchange, session, links));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await front.connect(transport);
      const streaming = transport.handleRequest(req, res);
      await relayServerStreams(front, session, this.servers, links, this.logger);
      await streaming;
      await front.close();
    } finally {
      await links.close();
    }
  }

  async delete({ ctx, req, res }: ServiceExchange): Promise<void> {
    const session = this.gate.sessionOf(ctx, res);
    if (!session) return;
    const links = new UpstreamLinks(session);
    try {
      await this.gate.end(session, links);
    } finally {
      await links.close();
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await transport.handleRequest(req, res);
  }

  private frontRequest(
    exchange: ServiceExchange,
    session: SessionState | undefined,
    links: UpstreamLinks,
  ): FrontRequest {
    const { ctx, res } = exchange;
    // Nobody is left to relay a call to once the client has gone.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    return {
      servers: this.servers,
      session,
      links,
      exposes: (server, tool) => this.exposed.get(server.name)?.(tool) ?? false,
      allows: toolsAllowedBy(ctx.key, ctx.team),
      calls: this.calls,
      gone: gone.signal,
      recorder: this.recorder(exchange),
      admit: (name) => this.admit(ctx, name),
      listed: this.listed,
      traced: (name, attributes, work) => tracedCall(ctx, name, attributes, work),
      logger: this.logger,
    };
  }

  /**
   * A priced tool's call holds its price against the budgets of the caller's key and team while it runs,
   * and is refused when one is spent, as a model call is; a tool without a price costs nothing to hold.
   */
  private async admit(ctx: GatewayContext, name: string): Promise<() => void> {
    const micros = this.ledger.prices.microsOf(name);
    const subjects = budgetSubjectsOf(ctx.key, ctx.team);
    if (!micros || subjects.length === 0) return () => undefined;
    const admission = await this.ledger.budgets.admit(subjects, micros);
    if (!admission.admitted) {
      const refusal = budgetRefusal(admission.subject);
      throw new RpcError(ErrorCode.InvalidRequest, `${refusal.code}: ${refusal.message}`);
    }
    const { hold } = admission;
    return () => {
      if (hold) void this.ledger.budgets.release(hold);
    };
  }

  /** Each call's usage record, its metrics, and what the request's access line and span say it called. */
  private recorder(exchange: ServiceExchange): CallRecorder {
    const ledger = new CallLedger(exchange.ctx, this.ledger);
    return {
      refused: (name) =>
        exchange.called({ name, upstream: splitName(name)?.server ?? '', outcome: 'refused', upstreamMs: 0 }),
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
