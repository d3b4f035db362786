import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router, type Found, type Params } from '../lib/router';
import { adminRoutes, type AdminReply } from './admin';
import type { BatchRegistry } from './batch-registry';
import { sendCannedReply } from './canned-reply';
import { Exchange } from './exchange';
import { requestModel, type FaultAction, type Faults } from './faults';
import type { Family, RouteHandler } from './family';
import { readBody, writeJson } from './http-io';
import { mcpEndpoint } from './mcp/endpoint';
import type { McpSessions } from './mcp/sessions';
import { entryFor, type RequestLog } from './request-log';
import { SimErrors } from './sim-error';
import type { PromptCache } from './prompt-cache';
import type { TaskRegistry } from './tasks/registry';

/** A family as mounted: its credential and its routes. */
interface Mounted {
  readonly family: Family;
  readonly key: string;
  readonly routes: Router<RouteHandler>;
}

/** What the router needs; `keys` overrides each family's default credential by family name. */
export interface RouterOptions {
  readonly families: readonly Family[];
  readonly keys: Readonly<Record<string, string | undefined>>;
  readonly log: RequestLog;
  readonly tasks: TaskRegistry;
  readonly faults: Faults;
  readonly promptCache: PromptCache;
  readonly batches: BatchRegistry;
  /** The MCP server's sessions, served at `/mcp`. */
  readonly mcp: McpSessions;
  /** The credential `/mcp` expects as a bearer token; none (every request let in) when absent or empty. */
  readonly mcpToken?: string;
}

/** Stands in for a family on paths no family is mounted at: a plain JSON 404. */
const NO_FAMILY: Family = {
  name: '',
  mount: '',
  defaultKey: '',
  requestIdHeader: 'x-request-id',
  routes: {},
  authorized: () => false,
  errorBody: (err) => ({ error: err.message, status: err.status }),
};

const ADMIN_PREFIX = '/_sim/';

const mountOf = (path: string): string => {
  const slash = path.indexOf('/', 1);
  return slash < 0 ? path : path.slice(0, slash);
};

/**
 * Routes keyed `METHOD /path`, where a `:name` segment matches any one non-empty path segment, and
 * `:name:verb` one that ends in the literal `:verb` (lib/router.ts).
 */
export function routeTable<H>(routes: Readonly<Record<string, H>>): Router<H> {
  const router = new Router<H>();
  for (const [key, handler] of Object.entries(routes)) {
    const space = key.indexOf(' ');
    router.add(key.slice(0, space), key.slice(space + 1), handler);
  }
  return router;
}

/** The route for `method` and `path` (no query string), its parameters percent-decoded, or undefined: no 405. */
export function matchRoute<H>(routes: Router<H>, method: string, path: string): Found<H> | undefined {
  const found = routes.find(method, path);
  return 'handler' in found ? { handler: found.handler, params: decoded(found.params) } : undefined;
}

function decoded(params: Params): Params {
  const entries = Object.entries(params);
  if (entries.length === 0) return params;
  return Object.fromEntries(entries.map(([name, value]) => [name, decodeSegment(value)]));
}

/** A path segment as sent, percent-decoded; left raw when it is not valid percent-encoding. */
function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

const ADMIN = routeTable(adminRoutes);

function writeReply(res: ServerResponse, reply: AdminReply): void {
  if ('json' in reply) return writeJson(res, reply.status, reply.json);
  res.writeHead(reply.status, { 'content-type': reply.contentType, 'content-length': reply.bytes.length });
  res.end(reply.bytes);
}

async function serveAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
  opts: RouterOptions,
): Promise<void> {
  const match = matchRoute(ADMIN, req.method ?? 'GET', path);
  if (!match) return writeJson(res, 404, { error: `no simulator route ${req.method} ${path}`, status: 404 });
  const { log, tasks, faults, promptCache, batches, mcp } = opts;
  try {
    const body = req.method === 'POST' ? (await readBody(req)).value : null;
    const searched = new URLSearchParams(query);
    const state = { log, tasks, faults, promptCache, batches, mcp };
    const request = { ...state, body, query: searched, params: match.params };
    writeReply(res, match.handler(request));
  } catch (e) {
    // A logged body too deep to serialise (or any other fault) answers 500; it must not end the process.
    writeJson(res, 500, { error: `simulator admin: ${(e as Error).message}`, status: 500 });
  }
}

/**
 * A fault set on the simulator (other than a reply), before the normal handling; true when it answered
 * (or will never answer).
 * `cut_after` only arms the per-request control of the same name, which the stream handlers read.
 */
function applyFault(ex: Exchange, fault: FaultAction): boolean {
  if (fault.reset) {
    ex.req.socket.destroy();
    return true;
  }
  if (fault.hang) return true; // the exchange ends when the client gives up or the simulator closes
  if (fault.status !== undefined) {
    ex.sendError(SimErrors.status(fault.status));
    return true;
  }
  if (fault.cut_after !== undefined) ex.req.headers['x-sim-cut-after'] = String(fault.cut_after);
  return false;
}

/**
 * Body, then route, then auth, then JSON validity: the order the vendors check in. The route is looked up
 * before the faults, which read the model from its path where it has one, but a missing route is answered
 * only after them: a fault applies on any path. A fault's `delay_ms` comes before everything else it does
 * (and before the normal answer when it does nothing else).
 */
async function serve(
  ex: Exchange,
  path: string,
  mounted: Mounted | undefined,
  faults: Faults,
): Promise<void> {
  try {
    const body = await readBody(ex.req);
    ex.entry.body = body.value;
    ex.bodyInvalid = body.invalid;
    ex.rawBody = body.raw;
    // The mount itself (`/mcp`) is its root, `/`.
    const below = path.slice(ex.family.mount.length) || '/';
    const route = mounted && matchRoute(mounted.routes, ex.entry.method, below);
    const fault = faults.take(path, requestModel(route?.params, body.value), ex.entry.method);
    if (fault?.delay_ms !== undefined && !(await ex.delay(fault.delay_ms))) return; // the client left
    // A canned reply answers before route and auth: the test's fixture is the whole answer.
    if (fault?.reply) return await sendCannedReply(ex, fault.reply);
    if (fault && applyFault(ex, fault)) return;
    if (!mounted || !route) throw SimErrors.notFound(ex.entry.method, path);
    if (!ex.family.authorized(ex.req.headers, mounted.key)) throw SimErrors.unauthorized();
    if (ex.bodyInvalid) throw SimErrors.badJson();
    ex.params = route.params;
    await route.handler(ex);
  } catch (err) {
    ex.fail(err);
  }
}

/**
 * The request listener: `/_sim/` inspection routes, else the family (or the MCP server) mounted at the
 * first path segment. Every family request is logged before its body is read, so even requests the client
 * abandons early show up in the log.
 */
export function createRouter(opts: RouterOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const mounts = new Map<string, Mounted>();
  const mcp = mcpEndpoint(opts.mcp);
  // Mounted first: a test's own family at `/mcp` would take its place.
  mounts.set(mcp.mount, { family: mcp, key: opts.mcpToken ?? '', routes: routeTable(mcp.routes) });
  for (const family of opts.families) {
    const key = opts.keys[family.name] ?? family.defaultKey;
    mounts.set(family.mount, { family, key, routes: routeTable(family.routes) });
  }
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path.startsWith(ADMIN_PREFIX)) {
      return void serveAdmin(req, res, path, q < 0 ? '' : url.slice(q + 1), opts);
    }
    const mounted = mounts.get(mountOf(path));
    const family = mounted?.family ?? NO_FAMILY;
    const entry = opts.log.add(entryFor(req));
    const ex = new Exchange(req, res, entry, family, opts.tasks, opts.promptCache, opts.batches);
    void serve(ex, path, mounted, opts.faults);
  };
}
