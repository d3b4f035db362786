/**
 * The operators' API, on its own listener (loopback by default), guarded by the admin token:
 *   GET    /admin/keys?limit=&cursor=&status=&q=   a page of keys in id order → {data, next_cursor}, each
 *                                      key with its last_used_at and spent_micros
 *   POST   /admin/keys                 create {description?, allowed_models?, rate_limit_rpm?, rate_limit_tpm?,
 *                                      max_concurrent?, expires_at?, budget?} → {key, record}
 *   GET    /admin/keys/:id             one key, as in the listing
 *   PATCH  /admin/keys/:id             change any of those fields and `enabled`; null clears an optional one
 *   POST   /admin/keys/:id/rotate      {disable_old_after?} → {key, record, replaces}
 *   POST   /admin/keys/:id/disable     and /enable
 *   DELETE /admin/keys/:id
 *   GET    /admin/keys/declared        the keys declared in gateway.yaml, each with `declared: true`; they
 *                                      are read-only here (409 key_declared to any change)
 * Every key record answered goes through publicKey: never a hash.
 *   GET    /admin/usage?id=&key_id=&limit=
 *   GET    /admin/usage/summary?group_by=key,model,hour&from=&to=&key_id=&model=   totals per group
 *                                      (UsageStore.summary); key_id and model filter, comma-separated
 *   GET    /admin/video/stats          the video poller's figures: tasks by state, polls, lag, upstream errors
 *   GET    /admin/tasks?limit=&cursor=&status=&key_id=&model=   video tasks, newest first → {data, next_cursor}
 *   GET    /admin/tasks/:id            one video task with its status history
 * Every task answered goes through taskView: never its lease or idempotency body hash (task-routes.ts).
 *   GET    /admin/config, POST /admin/reload   the configuration's version and hot reload (config-routes.ts)
 *   GET    /admin/upstreams            each upstream's failures, ejection and retries (upstream-routes.ts)
 * and, without the token, the operators' console: the page at `/` and its assets at `/console/*`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { Errors, sendError, toGatewayError } from '../errors';
import type { KeyService } from '../keys/key-service';
import { publicKey } from '../keys/public-key';
import { withActivity } from './key-activity';
import { checkParams, pageLimit } from './page-params';
import type { KeyChange, KeyRecord, KeyStatus } from '../stores/key-store';
import type { TaskStore } from '../stores/task-store';
import { HOUR_MS } from '../stores/usage-rollup';
import type { SummaryDimension, UsageStore, UsageSummaryQuery } from '../stores/usage-store';
import { bodyReader } from '../http/body';
import { requestIdFor } from '../http/request-id';
import { ConsoleAssets } from './console-assets';
import { taskById, taskPage } from './task-routes';
import { configView, reloadNow, type ConfigControl } from './config-routes';

/** What each field must be, as error messages say it: `field 'budget.amount_micros' must be …`. */
const EXPECTED: Record<string, string> = {
  description: 'a string of at most 500 characters',
  allowed_models: 'an array of non-empty model names',
  'allowed_models.*': 'a non-empty model name',
  rate_limit_rpm: 'a positive integer (requests per minute)',
  rate_limit_tpm: 'a positive integer (tokens per minute)',
  max_concurrent: 'a positive integer (requests in flight at once)',
  expires_at: "an ISO 8601 time with a time zone, e.g. '2026-12-31T23:59:59Z'",
  budget: 'an object {amount_micros, period}',
  'budget.amount_micros': 'a non-negative integer (millionths of the currency unit)',
  'budget.period': "'total' or 'month'",
  enabled: 'true or false',
  disable_old_after: 'a non-negative integer number of seconds (at most 10 years)',
};

const description = z.string().max(500);
const allowedModels = z.array(z.string().min(1));
const positiveInt = z.number().int().positive();
/** Stored as `Date#toISOString` (UTC, milliseconds), so stores compare expiries as strings. */
const expiresAt = z.iso
  .datetime({ offset: true })
  .refine((text) => Number.isFinite(Date.parse(text)))
  .transform((text) => new Date(text).toISOString());
const budget = z
  .object({
    amount_micros: z.number().int().nonnegative(),
    period: z.enum(['total', 'month']),
  })
  .strict();

const newKeyBody = z
  .object({
    description: description.optional(),
    allowed_models: allowedModels.optional(),
    rate_limit_rpm: positiveInt.optional(),
    rate_limit_tpm: positiveInt.optional(),
    max_concurrent: positiveInt.optional(),
    expires_at: expiresAt.optional(),
    budget: budget.optional(),
  })
  .strict();

const keyPatchBody = z
  .object({
    description: description.optional(),
    allowed_models: allowedModels.optional(),
    rate_limit_rpm: positiveInt.nullable().optional(),
    rate_limit_tpm: positiveInt.nullable().optional(),
    max_concurrent: positiveInt.nullable().optional(),
    expires_at: expiresAt.nullable().optional(),
    budget: budget.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

const TEN_YEARS_S = 10 * 366 * 24 * 3600;
const rotateBody = z
  .object({ disable_old_after: z.number().int().nonnegative().max(TEN_YEARS_S).optional() })
  .strict();

const STATUSES: readonly KeyStatus[] = ['enabled', 'disabled', 'expired'];
const PAGE_PARAMS = ['limit', 'cursor', 'status', 'q'];

/** Fields a PATCH may clear with null. */
const CLEARABLE = new Set(['rate_limit_rpm', 'rate_limit_tpm', 'max_concurrent', 'expires_at', 'budget']);

/** The first problem zod found, as the catalog's error naming the field (`clearing`: null is allowed). */
function bodyError(error: z.ZodError, clearing: boolean): Error {
  const issue = error.issues[0]!;
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys')
    return Errors.unknownField((path ? `${path}.` : '') + issue.keys[0]);
  if (!path) return Errors.invalidRequest('the request body must be a JSON object');
  // The deepest described field: `budget.period`, else `budget`; array items as `allowed_models.*`.
  const pattern = issue.path.map((p) => (typeof p === 'number' ? '*' : String(p)));
  const known = pattern
    .map((_, i) => pattern.slice(0, pattern.length - i).join('.'))
    .find((p) => EXPECTED[p] !== undefined);
  if (!known) return Errors.invalidField(path, issue.message);
  const orNull = clearing && CLEARABLE.has(known) ? ', or null to clear it' : '';
  return Errors.invalidField(path, EXPECTED[known]! + orNull);
}

async function readJsonBody<T>(req: IncomingMessage, schema: z.ZodType<T>, clearing = false): Promise<T> {
  const parsed = schema.safeParse(parseJson((await readAdminBody(req)).toString('utf8') || '{}'));
  if (!parsed.success) throw bodyError(parsed.error, clearing);
  return parsed.data;
}

const readAdminBody = bodyReader({ maxBytes: 64 * 1024, idleMs: 10_000, totalMs: 30_000 });

type AdminReply = { status: number; body: unknown };

const DIMENSIONS: readonly string[] = ['key', 'model', 'hour', 'day'] satisfies SummaryDimension[];
const SUMMARY_PARAMS = new Set(['group_by', 'from', 'to', 'key_id', 'model']);
/** At most this many values in one filter: a filter is typed or picked by an operator, not a dump. */
const MAX_FILTER_VALUES = 100;
/** A UTC or offset date-time; the summary's bounds must fall on the hour. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `group_by` (non-empty, of key, model and at most one of hour and day), `from` and `to` (on the hour). */
function summaryQuery(params: URLSearchParams): UsageSummaryQuery {
  for (const name of params.keys()) {
    if (!SUMMARY_PARAMS.has(name)) {
      throw Errors.invalidRequest(
        `unknown query parameter '${name.slice(0, 200)}': expected group_by, from, to, key_id, model`,
      );
    }
    if (params.getAll(name).length > 1) throw Errors.invalidQuery(name, 'given once');
  }
  const groupBy = (params.get('group_by') ?? '').split(',').filter(Boolean);
  if (groupBy.length === 0) {
    throw Errors.invalidRequest("query parameter 'group_by' is required: any of key, model, and hour or day");
  }
  for (const d of groupBy) {
    if (!DIMENSIONS.includes(d)) {
      throw Errors.invalidRequest(
        `'group_by' cannot include '${d.slice(0, 200)}': expected key, model, hour or day`,
      );
    }
  }
  if (new Set(groupBy).size !== groupBy.length) throw Errors.invalidRequest("'group_by' names a field twice");
  if (groupBy.includes('hour') && groupBy.includes('day')) {
    throw Errors.invalidRequest("'group_by' takes at most one of hour and day");
  }
  const bound = (name: 'from' | 'to'): number | undefined => {
    const text = params.get(name);
    if (text === null) return undefined;
    const at = ISO_TIME.test(text) ? Date.parse(text) : NaN;
    if (Number.isNaN(at) || at % HOUR_MS !== 0) {
      throw Errors.invalidRequest(
        `query parameter '${name}' must be an ISO 8601 time on the hour, such as 2026-01-01T00:00:00Z`,
      );
    }
    return at;
  };
  const from = bound('from');
  const to = bound('to');
  if (from !== undefined && to !== undefined && from >= to) {
    throw Errors.invalidRequest("query parameter 'from' must be before 'to'");
  }
  return {
    group_by: groupBy as SummaryDimension[],
    from,
    to,
    key_ids: filterValues(params, 'key_id'),
    models: filterValues(params, 'model'),
  };
}

/** `key_id=a,b`: the listed values, or undefined when the parameter is absent. */
function filterValues(params: URLSearchParams, name: 'key_id' | 'model'): string[] | undefined {
  const text = params.get(name);
  if (text === null) return undefined;
  const values = text.split(',');
  if (values.some((v) => v.length === 0 || v.length > 200) || values.length > MAX_FILTER_VALUES) {
    throw Errors.invalidQuery(name, `a comma-separated list of 1 to ${MAX_FILTER_VALUES} names`);
  }
  return values;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw Errors.invalidJson((e as Error).message);
  }
}

/** The parts of the admin API an instance may or may not have. */
export interface AdminSources {
  /** The video poller's figures; absent when this instance runs no poller. */
  readonly videoStats?: () => Promise<unknown>;
  /** The video tasks (`/admin/tasks`). */
  readonly tasks?: TaskStore;
  /** The configuration's status and reload (`/admin/config`, `/admin/reload`). */
  readonly config?: ConfigControl;
  /** The upstreams' health and retries (`/admin/upstreams`, upstream-routes.ts). */
  readonly upstreams?: () => unknown;
}

export class AdminServer {
  readonly server: Server;
  private readonly token: Buffer;
  private readonly console = new ConsoleAssets();

  constructor(
    token: string,
    private readonly keys: KeyService,
    private readonly usage: UsageStore,
    /** The rest of the API, each part present only where this instance has it (else its paths are 404). */
    private readonly sources: AdminSources = {},
  ) {
    this.token = Buffer.from(token);
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

  private authorized(header: string | undefined): boolean {
    const presented = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
    return presented.length === this.token.length && timingSafeEqual(presented, this.token);
  }

  private async route(req: IncomingMessage): Promise<AdminReply> {
    const url = new URL(req.url ?? '/', 'http://admin');
    const parts = url.pathname.split('/').filter(Boolean); // ['admin', 'keys', id?, action?]
    const method = req.method ?? 'GET';
    if (parts[0] === 'admin' && parts[1] === 'keys')
      return this.keysRoute(method, parts.slice(2), req, url.searchParams);
    if (url.pathname === '/admin/usage/summary' && method === 'GET') {
      return { status: 200, body: { data: await this.usage.summary(summaryQuery(url.searchParams)) } };
    }
    if (url.pathname === '/admin/usage' && method === 'GET') {
      const limit = url.searchParams.get('limit');
      if (limit !== null && !/^[1-9]\d{0,6}$/.test(limit)) {
        throw Errors.invalidRequest("query parameter 'limit' must be a positive integer");
      }
      const records = await this.usage.list({
        ...(url.searchParams.get('id') ? { id: url.searchParams.get('id')! } : {}),
        ...(url.searchParams.get('key_id') ? { key_id: url.searchParams.get('key_id')! } : {}),
        ...(limit ? { limit: Number(limit) } : {}),
      });
      return { status: 200, body: { data: records } };
    }
    const { config, videoStats, upstreams, tasks } = this.sources;
    if (url.pathname === '/admin/config' && method === 'GET' && config) {
      return { status: 200, body: await configView(config) };
    }
    if (url.pathname === '/admin/reload' && method === 'POST' && config) {
      return { status: 200, body: await reloadNow(config) };
    }
    if (url.pathname === '/admin/video/stats' && method === 'GET' && videoStats) {
      return { status: 200, body: await videoStats() };
    }
    if (url.pathname === '/admin/upstreams' && method === 'GET' && upstreams) {
      return { status: 200, body: upstreams() };
    }
    if (parts[0] === 'admin' && parts[1] === 'tasks' && parts.length <= 3 && method === 'GET' && tasks) {
      const id = parts[2];
      const body = id ? await taskById(tasks, id) : await taskPage(tasks, url.searchParams);
      return { status: 200, body };
    }
    throw Errors.notFound(method, url.pathname);
  }

  private async keysRoute(
    method: string,
    rest: string[],
    req: IncomingMessage,
    search: URLSearchParams,
  ): Promise<AdminReply> {
    const [id, action, ...more] = rest;
    // Declared keys change when gateway.yaml does; any other method on their paths would change them.
    if (id && method !== 'GET' && this.keys.isDeclared(id)) throw Errors.keyDeclared(id);
    if (more.length === 0) {
      if (!id && method === 'GET') return { status: 200, body: await this.keyPage(search) };
      if (id === 'declared' && !action && method === 'GET') {
        return { status: 200, body: { data: await this.withActivity(this.keys.listDeclared()) } };
      }
      if (!id && method === 'POST') {
        const created = await this.keys.create(await readJsonBody(req, newKeyBody));
        return { status: 201, body: { key: created.key, record: publicKey(created.record) } };
      }
      if (id && !action && method === 'GET') {
        const record = await this.keys.findById(id);
        if (!record) throw Errors.keyNotFound(id);
        return { status: 200, body: (await this.withActivity([record]))[0] };
      }
      if (id && !action && method === 'PATCH') {
        const patch = await readJsonBody(req, keyPatchBody, true);
        const change: KeyChange = {};
        // null clears a field: the stores remove a field given as undefined.
        for (const [field, value] of Object.entries(patch) as [keyof KeyChange, unknown][]) {
          (change as Record<string, unknown>)[field] = value === null ? undefined : value;
        }
        return this.found(id, await this.keys.update(id, change));
      }
      if (id && !action && method === 'DELETE') return this.found(id, await this.keys.delete(id));
      if (id && (action === 'disable' || action === 'enable') && method === 'POST') {
        return this.found(id, await this.keys.update(id, { enabled: action === 'enable' }));
      }
      if (id && action === 'rotate' && method === 'POST') {
        const { disable_old_after } = await readJsonBody(req, rotateBody);
        const rotated = await this.keys.rotate(
          id,
          disable_old_after === undefined ? undefined : disable_old_after * 1000,
        );
        if (!rotated) throw Errors.keyNotFound(id);
        return {
          status: 201,
          body: { key: rotated.key, record: publicKey(rotated.record), replaces: rotated.replaces },
        };
      }
    }
    throw Errors.notFound(method, `/admin/keys/${rest.join('/')}`);
  }

  /** `?limit=1..500 (100)&cursor=<next_cursor>&status=enabled|disabled|expired&q=<substring>`. */
  private async keyPage(search: URLSearchParams): Promise<{ data: unknown[]; next_cursor: string | null }> {
    checkParams(search, PAGE_PARAMS);
    const limit = pageLimit(search, 100);
    const cursor = search.get('cursor');
    if (cursor !== null && (cursor.length === 0 || cursor.length > 64)) {
      throw Errors.invalidQuery('cursor', 'the next_cursor of the previous page');
    }
    const status = search.get('status');
    if (status !== null && !STATUSES.includes(status as KeyStatus)) {
      throw Errors.invalidQuery('status', "'enabled', 'disabled' or 'expired'");
    }
    const q = search.get('q');
    if (q !== null && q.length > 200) throw Errors.invalidQuery('q', 'at most 200 characters');
    const now = Date.now();
    const records = await this.keys.page({
      limit: limit + 1, // one more tells whether there is a next page
      now: new Date(now).toISOString(),
      ...(cursor !== null ? { after: cursor } : {}),
      ...(status !== null ? { status: status as KeyStatus } : {}),
      ...(q ? { q } : {}),
    });
    const data = records.slice(0, limit);
    return {
      data: await withActivity(this.usage, data, now),
      next_cursor: records.length > limit ? data[data.length - 1]!.id : null,
    };
  }

  /** Keys as listed, a declared one marked `declared: true`. */
  private async withActivity(records: readonly KeyRecord[]): Promise<unknown[]> {
    const listed = await withActivity(this.usage, records, Date.now());
    return listed.map((k) => (this.keys.isDeclared(k.id) ? { ...k, declared: true } : k));
  }

  private found(id: string, record: KeyRecord | undefined): AdminReply {
    if (!record) throw Errors.keyNotFound(id);
    return { status: 200, body: publicKey(record) };
  }
}
