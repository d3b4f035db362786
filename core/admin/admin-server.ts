/**
 * The operators' API, on its own listener (loopback by default), guarded by the admin token:
 *   /admin/keys…                       keys: list, create, read, change, rotate, disable, delete (key-routes.ts)
 *   /admin/teams…                      teams of keys: list, create, read, change, delete (team-routes.ts)
 *   GET    /admin/usage?id=&key_id=&team_id=&limit=
 *   GET    /admin/usage/summary?group_by=key,team,model,endpoint,hour&from=&to=&key_id=&team_id=&model=&endpoint=
 *                                      totals per group (UsageStore.summary); key_id, team_id, model and endpoint
 *                                      filter, comma-separated
 *   GET    /admin/video/stats          the video poller's figures: tasks by state, polls, lag, upstream errors
 *   GET    /admin/tasks?limit=&cursor=&status=&key_id=&team_id=&model=   video tasks, newest first → {data, next_cursor}
 *   GET    /admin/tasks/:id            one video task with its status history
 * Every task answered goes through taskView: never its lease or idempotency body hash (task-routes.ts).
 *   GET    /admin/config, POST /admin/reload   the configuration's version and hot reload (config-routes.ts)
 *   GET    /admin/upstreams            each upstream's failures, ejection and retries (upstream-routes.ts)
 *   GET    /admin/health               readiness in detail: phase, and each check's state, reason and since
 *                                      when (core/health/readiness.ts; the main port's /readyz says only ok or not)
 * and, without the token, the operators' console: the page at `/` and its assets at `/console/*`, and
 * `GET /metrics` (Prometheus text; counts and timings, no secrets, and a scraper carries no token).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { Errors, sendError, toGatewayError } from '../base/errors';
import type { KeyService } from '../keys/key-service';
import type { TeamService } from '../teams/team-service';
import type { TaskStore } from '../stores/task-store';
import type { UsageStore } from '../stores/usage-store';
import { requestIdFor } from '../http/request-id';
import { Router } from '../../lib/router';
import { okRoute, type AdminReply, type AdminRoute } from './admin-reply';
import { configView, reloadNow, type ConfigControl } from './config-routes';
import { ConsoleAssets } from './console-assets';
import { KeyRoutes } from './key-routes';
import { TeamRoutes } from './team-routes';
import { taskById, taskPage } from './task-routes';
import { summaryQuery } from './usage-query';
import type { List, UsageSummaryRow } from './wire';

/** The parts of the admin API an instance may or may not have. */
export interface AdminSources {
  /** The video poller's figures; absent when this instance runs no poller. */
  readonly videoStats?: () => Promise<unknown>;
  /** The video tasks (`/admin/tasks`). */
  readonly tasks?: TaskStore;
  /** Teams of keys (`/admin/teams`); without it, keys cannot be given a team. */
  readonly teams?: TeamService;
  /** The configuration's status and reload (`/admin/config`, `/admin/reload`). */
  readonly config?: ConfigControl;
  /** The upstreams' health and retries (`/admin/upstreams`, upstream-routes.ts). */
  readonly upstreams?: () => unknown;
  /** Readiness with each check's state and reason (`/admin/health`). */
  readonly health?: () => Promise<unknown>;
  /** The Prometheus scrape (`GET /metrics`, no token). */
  readonly metrics?: () => Promise<{ contentType: string; body: string }>;
}

/**
 * Every route behind the token. Each part an instance may lack is routed only where it has it, so
 * without it its paths are 404. Parameters stay as sent: ids are not percent-decoded.
 */
function apiRoutes(keys: KeyRoutes, usage: UsageStore, sources: AdminSources): AdminRoute[] {
  const { config, videoStats, upstreams, tasks, health, teams } = sources;
  const routes: (AdminRoute | undefined)[] = [
    ...keys.routes(),
    ...(teams ? new TeamRoutes(teams, usage).routes() : []),
    // The store's rows are the answer as they are: declared as the wire's, a store change that breaks
    // the answer fails to compile here.
    okRoute('GET', '/admin/usage/summary', async ({ search }): Promise<List<UsageSummaryRow>> => ({
      data: await usage.summary(summaryQuery(search)),
    })),
    okRoute('GET', '/admin/usage', async ({ search }) => ({ data: await usageRecords(usage, search) })),
    health && okRoute('GET', '/admin/health', () => health()),
    config && okRoute('GET', '/admin/config', () => configView(config)),
    config && okRoute('POST', '/admin/reload', () => reloadNow(config)),
    videoStats && okRoute('GET', '/admin/video/stats', () => videoStats()),
    upstreams && okRoute('GET', '/admin/upstreams', () => upstreams()),
    tasks && okRoute('GET', '/admin/tasks', ({ search }) => taskPage(tasks, search)),
    tasks && okRoute('GET', '/admin/tasks/:id', ({ params }) => taskById(tasks, params.id ?? '')),
  ];
  return routes.filter((route) => route !== undefined);
}

/** `?id=&key_id=&team_id=&limit=`: the usage records that match. */
function usageRecords(usage: UsageStore, search: URLSearchParams): ReturnType<UsageStore['list']> {
  const limit = search.get('limit');
  if (limit !== null && !/^[1-9]\d{0,6}$/.test(limit)) {
    throw Errors.invalidRequest("query parameter 'limit' must be a positive integer");
  }
  return usage.list({
    ...(search.get('id') ? { id: search.get('id')! } : {}),
    ...(search.get('key_id') ? { key_id: search.get('key_id')! } : {}),
    ...(search.get('team_id') ? { team_id: search.get('team_id')! } : {}),
    ...(limit ? { limit: Number(limit) } : {}),
  });
}

export class AdminServer {
  readonly server: Server;
  private readonly token: Buffer;
  private readonly console = new ConsoleAssets();
  private readonly routes = new Router<AdminRoute>({ ignoreEmptySegments: true });

  constructor(
    token: string,
    keys: KeyService,
    usage: UsageStore,
    /** The rest of the API, each part present only where this instance has it (else its paths are 404). */
    private readonly sources: AdminSources = {},
  ) {
    this.token = Buffer.from(token);
    for (const route of apiRoutes(new KeyRoutes(keys, usage, sources.teams), usage, sources)) {
      this.routes.add(route.method, route.path, route);
    }
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = requestIdFor(req.headers['x-request-id']);
    try {
      if (this.servedConsole(req, res)) return;
      if (await this.servedMetrics(req, res)) return;
      if (!this.authorized(req.headers.authorization)) throw Errors.unauthorized();
      const reply = await this.route(req);
      const body = JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': requestId });
      res.end(body);
    } catch (e) {
      sendError(res, toGatewayError(e), requestId);
    }
  }

  /** The console's page and assets are public; any other `/console/…` path is a 404, token or not. */
  private servedConsole(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return false;
    const pathname = (req.url ?? '/').split('?')[0]!;
    if (pathname !== '/' && pathname !== '/index.html' && !pathname.startsWith('/console/')) return false;
    const asset = this.console.lookup(pathname);
    if (!asset) throw Errors.notFound(method, pathname.slice(0, 200));
    this.console.send(res, asset, req.headers['if-none-match'], method === 'HEAD');
    return true;
  }

  /** `GET /metrics` is public on this (loopback by default) listener, like the console. */
  private async servedMetrics(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const scrape = this.sources.metrics;
    if (!scrape || req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') return false;
    const { contentType, body } = await scrape();
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return true;
  }

  private authorized(header: string | undefined): boolean {
    const presented = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
    return presented.length === this.token.length && timingSafeEqual(presented, this.token);
  }

  /** The API behind the token; it has no 405: a path without the request's method is as unknown as any. */
  private route(req: IncomingMessage): Promise<AdminReply> {
    const url = new URL(req.url ?? '/', 'http://admin');
    const method = req.method ?? 'GET';
    const found = this.routes.find(method, url.pathname);
    if (!('handler' in found)) throw Errors.notFound(method, url.pathname);
    return found.handler.handle({ req, search: url.searchParams, params: found.params });
  }
}
