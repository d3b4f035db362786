/**
 * The operators' API, on its own listener (loopback by default). Each call's caller is resolved through
 * the actor sources (the bootstrap token, stored admin tokens; a console session where plugged in) and
 * checked against the route access table (route-access.ts) before its handler runs; every changing call
 * and every refused one is written to the audit log before it is answered (audit-trail.ts).
 *   /admin/keys…                       keys: list, create, read, change, rotate, disable, delete (key-routes.ts)
 *   /admin/teams…                      teams of keys: list, create, read, change, delete (team-routes.ts)
 *   GET    /admin/usage?id=&key_id=&team_id=&model=&endpoint=&limit=   usage records, the latest `limit`
 *   GET    /admin/usage/summary?group_by=key,team,model,endpoint,hour&from=&to=&key_id=&team_id=&model=&endpoint=
 *                                      totals per group (UsageStore.summary); key_id, team_id, model and endpoint
 *                                      filter, comma-separated
 *   GET    /admin/video/stats          the video poller's figures: tasks by state, polls, lag, upstream errors
 *   GET    /admin/tasks?limit=&cursor=&status=&key_id=&team_id=&model=   video tasks, newest first → {data, next_cursor}
 *   GET    /admin/tasks/:id            one video task with its status history
 * Every task answered goes through taskView: never its lease or idempotency body hash (task-routes.ts).
 *   GET    /admin/config, POST /admin/reload   the configuration's version and hot reload (config-routes.ts)
 *   GET    /admin/upstreams            each upstream's failures, ejection and retries (upstream-routes.ts)
 *   /admin/tokens…                     the admin tokens: list, create, revoke (token-routes.ts)
 *   GET    /admin/audit                the audit log, newest first (audit-routes.ts)
 *   GET    /admin/whoami               the caller and its role, as the console needs to know what to offer
 *   GET    /admin/health               readiness in detail: phase, and each check's state, reason and since
 *                                      when (core/health/readiness.ts; the main port's /readyz says only ok or not)
 * and, without the token, the operators' console: the page at `/` and its assets at `/console/*`, and
 * `GET /metrics` (Prometheus text; counts and timings, no secrets, and a scraper carries no token).
 * With single sign-on (`console.oidc`, core/admin/sso/), `/auth/…` and `GET /admin/session` are its
 * own (sign-on.ts), and a console session is one more actor source.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Errors, sendError, toGatewayError } from '../base/errors';
import type { KeyService } from '../keys/key-service';
import type { TeamService } from '../teams/team-service';
import type { AuditStore } from '../stores/audit-store';
import type { TaskStore } from '../stores/task-store';
import type { UsageFilter, UsageStore } from '../stores/usage-store';
import { requestIdFor } from '../http/request-id';
import { Router } from '../../lib/router';
import { resolveActor, type ActorSource } from './actor-sources';
import { okRoute, type AdminCall, type AdminReply, type AdminRoute } from './admin-reply';
import type { AdminTokenService } from './admin-token-service';
import { auditPage } from './audit-routes';
import { AuditTrail } from './audit-trail';
import { CallAudit, outcomeOf } from './call-audit';
import { accessOf, checkAccess, type RouteAccess, type TeamOwners } from './route-access';
import { teamOwners } from './team-owners';
import { TokenRoutes, type TeamExists } from './token-routes';
import { configView, reloadNow, type ConfigControl } from './config-routes';
import { ConsoleAssets } from './console-assets';
import type { SignOn } from './sign-on';
import { KeyRoutes } from './key-routes';
import type { PluginAdminRoutes } from './plugin-routes';
import { TeamRoutes } from './team-routes';
import { taskById, taskPage } from './task-routes';
import { checkParams } from './page-params';
import { summaryQuery } from './usage-query';
import type { List, UsageRecord, UsageSummaryRow, WhoAmI } from './wire';

/** Who may call, and the record of what they did. */
export interface AdminAccess {
  /** Tried in order; the first to recognise the caller gives its Actor. None: 401. */
  readonly actors: readonly ActorSource[];
  readonly tokens: AdminTokenService;
  readonly audit: AuditStore;
  readonly logger: Logger;
  /** Whether a team exists, for team_admin tokens; absent where this gateway has no teams. */
  readonly teamExists?: TeamExists;
  /** Who may call each route; route-access.ts's table unless given (tests). */
  readonly table?: Readonly<Record<string, RouteAccess>>;
}

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
  /** Single sign-on's routes (its sessions' persons come through `AdminAccess.actors`). */
  readonly signOn?: SignOn;
  /** Routes plugins add (plugin-routes.ts), served as they are added. */
  readonly pluginRoutes?: PluginAdminRoutes;
}

/**
 * Every route behind the token. Each part an instance may lack is routed only where it has it, so
 * without it its paths are 404. Parameters stay as sent: ids are not percent-decoded.
 */
function apiRoutes(
  keys: KeyRoutes,
  tokens: TokenRoutes,
  audit: AuditStore,
  usage: UsageStore,
  sources: AdminSources,
): AdminRoute[] {
  const { config, videoStats, upstreams, tasks, health, teams } = sources;
  const routes: (AdminRoute | undefined)[] = [
    ...keys.routes(),
    ...(teams ? new TeamRoutes(teams, usage).routes() : []),
    ...tokens.routes(),
    okRoute('GET', '/admin/audit', ({ search }) => auditPage(audit, search)),
    okRoute('GET', '/admin/whoami', ({ actor }): WhoAmI => ({ actor })),
    // The store's rows are the answer as they are: declared as the wire's, a store change that breaks
    // the answer fails to compile here.
    okRoute('GET', '/admin/usage/summary', async ({ search }): Promise<List<UsageSummaryRow>> => ({
      data: await usage.summary(summaryQuery(search)),
    })),
    okRoute('GET', '/admin/usage', async ({ search }): Promise<List<UsageRecord>> => ({
      data: await usageRecords(usage, search),
    })),
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

/** The fields `/admin/usage` filters by, each to one value. */
const RECORD_FILTERS = ['id', 'key_id', 'team_id', 'model', 'endpoint'] as const;

/** `?id=&key_id=&team_id=&model=&endpoint=&limit=`: the usage records that match, each filter exact. */
function usageRecords(usage: UsageStore, search: URLSearchParams): ReturnType<UsageStore['list']> {
  // Unknown parameters are refused: a filter this listing does not apply must not pass for applied.
  checkParams(search, [...RECORD_FILTERS, 'limit']);
  const limit = search.get('limit');
  if (limit !== null && !/^[1-9]\d{0,6}$/.test(limit)) {
    throw Errors.invalidRequest("query parameter 'limit' must be a positive integer");
  }
  const filter: UsageFilter = limit ? { limit: Number(limit) } : {};
  for (const name of RECORD_FILTERS) {
    const value = search.get(name);
    if (value) filter[name] = value;
  }
  return usage.list(filter);
}

/** A route with its entry of the access table. */
interface GuardedRoute {
  readonly route: AdminRoute;
  readonly access: RouteAccess;
}

export class AdminServer {
  readonly server: Server;
  private readonly console = new ConsoleAssets();
  private readonly routes = new Router<GuardedRoute>({ ignoreEmptySegments: true });
  private readonly trail: AuditTrail;
  private readonly owners: TeamOwners;

  constructor(
    private readonly access: AdminAccess,
    keys: KeyService,
    usage: UsageStore,
    /** The rest of the API, each part present only where this instance has it (else its paths are 404). */
    private readonly sources: AdminSources = {},
  ) {
    const tokens = new TokenRoutes(access.tokens, access.teamExists);
    for (const route of apiRoutes(
      new KeyRoutes(keys, usage, sources.teams),
      tokens,
      access.audit,
      usage,
      sources,
    )) {
      // A route the table does not list stops start-up here.
      this.routes.add(route.method, route.path, {
        route,
        access: accessOf(route.method, route.path, access.table),
      });
    }
    sources.pluginRoutes?.serve((route, entry) =>
      this.routes.add(route.method, route.path, { route, access: entry }),
    );
    this.trail = new AuditTrail(access.audit, access.logger);
    this.owners = teamOwners(keys, sources.tasks);
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
      if (await this.sources.signOn?.serve(req, res, requestId)) return;
      const reply = await this.call(req, requestId);
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

  /**
   * The API behind the actor sources; it has no 405: a path without the request's method is as unknown
   * as any. Refusals (401, 403) and changing calls are audited before the answer goes out.
   */
  private async call(req: IncomingMessage, requestId: string): Promise<AdminReply> {
    const url = new URL(req.url ?? '/', 'http://admin');
    const method = req.method ?? 'GET';
    const found = this.routes.find(method, url.pathname);
    const guarded = 'handler' in found ? found.handler : undefined;
    const params = 'handler' in found ? found.params : {};
    const audit = new CallAudit(this.trail, {
      route: `${method} ${guarded ? guarded.route.path : url.pathname}`,
      params,
      request_id: requestId,
      client_address: req.socket.remoteAddress ?? '',
    });
    // A console session may refuse outright (401, or 403 csrf_failed): audited like any refusal.
    const actor = await resolveActor(this.access.actors, req).catch(async (e: unknown) => {
      const error = toGatewayError(e);
      throw error.status === 401 || error.status === 403 ? await audit.refused(undefined, error) : error;
    });
    if (!actor) throw await audit.refused(undefined, Errors.unauthorized());
    if (!guarded) throw Errors.notFound(method, url.pathname);
    const { route, access } = guarded;
    try {
      const checked = { route: `${method} ${route.path}`, search: url.searchParams, params };
      await checkAccess(access, actor, checked, this.owners);
    } catch (e) {
      // A refusal is `access.denied`; anything else (a store that cannot answer) is the call's failure.
      const error = toGatewayError(e);
      if (error.status === 403) throw await audit.refused(actor, error);
      await audit.finished(actor, access.audit, outcomeOf(error));
      throw error;
    }
    const team = actor.role === 'team_admin' ? actor.team_id : undefined;
    const call: AdminCall = { req, search: url.searchParams, params, actor, team, audit: audit.note };
    if (!access.audit) return route.handle(call);
    try {
      const reply = await route.handle(call);
      await audit.finished(actor, access.audit, { status: reply.status });
      return reply;
    } catch (e) {
      const error = toGatewayError(e);
      await audit.finished(actor, access.audit, outcomeOf(error));
      throw error;
    }
  }
}
