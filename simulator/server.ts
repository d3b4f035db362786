import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchRegistry } from './batch-registry';
import { families } from './families';
import type { Family } from './family';
import { Faults } from './faults';
import { McpSessions } from './mcp/sessions';
import { PromptCache, type PromptCacheOptions } from './prompt-cache';
import { RequestLog } from './request-log';
import { createRouter } from './router';
import { TaskRegistry } from './tasks/registry';

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Interface to bind; default 127.0.0.1. */
  readonly host?: string;
  /**
   * Credential each family expects, by family name. Families left out keep their default:
   * `sim-modela-key`, `sim-modelb-key`, `sim-modelc-key`, `sim-modeld-key` (which `modeld`
   * accepts as `x-api-key` or as a bearer token), `sim-videoa-key` and `sim-videob-key`.
   */
  readonly keys?: Readonly<Record<string, string | undefined>>;
  /**
   * Epoch ms now, for the video tasks (their phases, poll times and poll stats) and the batches (their
   * progress), default `Date.now`. A test whose subject is a task's or a batch's time moves a fake clock
   * through it instead of waiting.
   */
  readonly clock?: () => number;
  /**
   * The families it speaks (default: every one of `simulator/families/`). A test serves a family of its
   * own this way, e.g. a vendor shape no shipped family has.
   */
  readonly families?: readonly Family[];
  /**
   * The prompt cache's window (5 minutes) and floor (1,024 tokens); its clock is `clock`. A request's
   * `prompt_cache_ms` control sets the window it is judged by.
   */
  readonly promptCache?: Omit<PromptCacheOptions, 'clock'>;
  /**
   * The credential the MCP server at `/mcp` expects, as `Authorization: Bearer <it>`; a request without it
   * is answered 401. Absent (the default) or empty: none is asked for.
   */
  readonly mcpToken?: string;
}

/** A listening simulator. */
export interface RunningSimulator {
  /** Base URL, e.g. `http://127.0.0.1:9100`. */
  readonly url: string;
  readonly port: number;
  /** Every request received (the last 2,000). */
  readonly log: RequestLog;
  /**
   * The video tasks submitted and every task id polled, with poll counts (`get`, `list`) and each
   * family's poll high-water marks (`stats`, `statsOf`), as `/_sim/tasks` shows them.
   */
  readonly tasks: TaskRegistry;
  /** Faults set on the whole simulator, as `/_sim/faults` sets them (see faults.ts). */
  readonly faults: Faults;
  /** The conversation starts it has seen, as a vendor's prompt cache (see prompt-cache.ts). */
  readonly promptCache: PromptCache;
  /**
   * Both vendors' batches and OpenAI's files, and how long a batch takes (`durationMs`), as
   * `/_sim/batches` shows and sets them.
   */
  readonly batches: BatchRegistry;
  /** The MCP server at `/mcp`: its open sessions (`ids()`) and the tool calls it ran (`calls`). */
  readonly mcp: McpSessions;
  /** Ends the MCP sessions, stops listening and destroys every connection, open streams included. */
  close(): Promise<void>;
}

// Longer than a benchmark's pause between requests, short enough not to pin idle sockets.
const KEEP_ALIVE_MS = 5_000;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Streams and keep-alive sockets would otherwise hold close() open; their 'close' events
    // clear every pending timer.
    server.closeAllConnections();
  });
}

/**
 * Starts the upstream simulator: a real HTTP server speaking each family's protocol (chat,
 * messages, images, video tasks, batches), and an MCP server at `/mcp`.
 * @example
 * const sim = await startSimulator();
 * await fetch(`${sim.url}/modela/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sim-modela-key' }, body });
 * await sim.close();
 */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const host = opts.host ?? '127.0.0.1';
  const log = new RequestLog();
  const tasks = new TaskRegistry(undefined, undefined, opts.clock);
  const faults = new Faults();
  const promptCache = new PromptCache({ ...opts.promptCache, ...(opts.clock ? { clock: opts.clock } : {}) });
  const batches = new BatchRegistry(opts.clock);
  const mcp = new McpSessions();
  const server = createServer(
    createRouter({
      families: opts.families ?? families,
      keys: opts.keys ?? {},
      ...{ log, tasks, faults, promptCache, batches, mcp },
      ...(opts.mcpToken ? { mcpToken: opts.mcpToken } : {}),
    }),
  );
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  const port = await listen(server, opts.port ?? 0, host);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  const stop = async (): Promise<void> => {
    // First, so their calls stop (a `slow` call's timer would outlive the connections otherwise).
    await mcp.closeAll();
    await close(server);
  };
  return { url, port, log, tasks, faults, promptCache, batches, mcp, close: stop };
}
