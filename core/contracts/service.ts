/**
 * A service plugin: one that serves endpoints of its own on the gateway's port, beside the model APIs
 * (an MCP endpoint in front of tool servers). Its options are gateway.yaml's top-level section of its
 * name (`mcp:`), rebuilt with each configuration snapshot like every plugin's. Its requests pass the
 * same pipeline as every call (auth, limits, the access log, metrics and trace); only what the protocol
 * needs is its own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayContext, Outcome } from './context';
import type { TaskWorker } from './task-worker';

/**
 * What a service request called, for its access line (`model`, `upstream`, `upstream_ms`), its outcome
 * (the same in the access line, the metrics and the span) and its span: an MCP tool call's tool and server.
 */
export interface ServiceCall {
  /** What was called, as the client named it (`demo__add`). */
  readonly name: string;
  /** Where: the upstream's name in gateway.yaml. */
  readonly upstream: string;
  readonly outcome: Outcome;
  /** Time spent waiting on the upstream. */
  readonly upstreamMs: number;
}

/** One request to a service endpoint, after the pipeline's stages let it through. */
export interface ServiceExchange {
  readonly ctx: GatewayContext;
  /**
   * The connection itself, which a protocol library answering on it needs (the MCP SDK's transport
   * writes its own answers and streams). The body was read by the gateway's reader, under its size and
   * time limits: take it from `ctx.rawBody()`, not from `req`.
   */
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Says what the request called, once it has ended (the last call, where a request makes several). */
  called(call: ServiceCall): void;
}

export interface ServiceEndpoint {
  /** Names its requests in the access log, metrics and usage records (`mcp`). */
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  /**
   * False for a long-lived stream the client keeps open beside its calls (MCP's server-to-client
   * stream): the rate limits neither count it as a request nor hold a concurrency slot for it.
   */
  readonly rateLimited?: boolean;
  /** The largest body it takes, where it is not `server.body_limit` (a file upload). */
  readonly bodyLimit?: number;
  /** Resolves once the answer is complete (a stream's last byte) or the client has gone. */
  handle(exchange: ServiceExchange): Promise<void>;
}

export interface ServicePlugin {
  readonly endpoints: readonly ServiceEndpoint[];
  /**
   * Runs before the snapshot it belongs to serves (at start, and at each reload): loads what the service
   * needs only when configured, and checks what only it can (its servers' tools against its
   * configuration). A ConfigError refuses the configuration.
   */
  ready?(): Promise<void>;
  /** Workers of the tasks the service stores (a batch's steps), driven by the gateway's poller. */
  readonly taskWorkers?: readonly TaskWorker[];
}
