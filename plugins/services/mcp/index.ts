/**
 * One MCP endpoint in front of the company's tool servers (`mcp:` in gateway.yaml): `POST`, `GET` and
 * `DELETE /mcp` on the gateway's port, MCP's Streamable HTTP transport on both sides through the official
 * SDK. Clients authenticate with their gateway key (the pipeline's auth, limits and access log apply);
 * each server's tools, prompts and resources appear together (tools and prompts as `<server>__<name>`),
 * tools narrowed to what the section exposes and what the key and its team may use (`allowed_tools`);
 * every tool call is relayed, metered and priced.
 *
 * This file is what every gateway loads (plugins are found on disk): the manifest and a shell. The work
 * and the SDK under it (mcp-endpoint.ts) load when a configuration names the section, in `ready`.
 */
import { inject } from 'tsyringe';
import type { Logger } from 'pino';
import { definePlugin, LoggerToken } from '../../../core/kit/plugin';
import {
  BudgetLedgerToken,
  type BudgetLedger,
  KeptStateToken,
  type KeptState,
  PluginMetricsToken,
  type PluginMetrics,
  RedisToken,
  type RedisLink,
  UsageStoreToken,
  type UsageStore,
} from '../../../core/kit/tokens';
import {
  SealerToken,
  type Sealer,
  type ServiceEndpoint,
  type ServiceExchange,
  type ServicePlugin,
} from '../../../core/kit/service';
import type { EndpointParts, McpEndpoint } from './mcp-endpoint';
import { mcpOptions, type McpOptions } from './options';

const PATH = '/mcp';

@definePlugin({ kind: 'service', name: 'mcp', options: mcpOptions })
export class McpService implements ServicePlugin {
  readonly endpoints: readonly ServiceEndpoint[] = [
    { id: 'mcp', method: 'POST', path: PATH, handle: (exchange) => this.work(exchange).post(exchange) },
    // The session's stream from its servers: open as long as the client keeps it, so no limit counts it.
    {
      id: 'mcp',
      method: 'GET',
      path: PATH,
      rateLimited: false,
      handle: (exchange) => this.work(exchange).listen(exchange),
    },
    { id: 'mcp', method: 'DELETE', path: PATH, handle: (exchange) => this.work(exchange).delete(exchange) },
  ];
  private readonly parts: EndpointParts;
  private endpoint: McpEndpoint | undefined;

  constructor(
    options: McpOptions,
    @inject(SealerToken) sealer: Sealer,
    @inject(UsageStoreToken) store: UsageStore,
    @inject(BudgetLedgerToken) budgets: BudgetLedger,
    @inject(KeptStateToken) kept: KeptState,
    @inject(LoggerToken) logger: Logger,
    @inject(PluginMetricsToken) metrics: PluginMetrics,
    @inject(RedisToken) redis: RedisLink | undefined,
  ) {
    this.parts = { options, sealer, store, budgets, kept, logger, metrics, redis };
  }

  /** Loads the endpoint's work, and checks each server's `tools` against its tools (before serving). */
  async ready(): Promise<void> {
    const { McpEndpoint } = await import('./mcp-endpoint');
    this.endpoint = new McpEndpoint(this.parts);
    await this.endpoint.checkTools();
  }

  /** A snapshot serves only once its services are ready. */
  private work(exchange: ServiceExchange): McpEndpoint {
    if (!this.endpoint)
      throw new Error(`the MCP endpoint served ${exchange.ctx.requestId} before it was ready`);
    return this.endpoint;
  }
}
