/**
 * The operators' API, on its own listener (loopback by default), guarded by the admin token:
 *   GET    /admin/keys                 list (never the full keys)
 *   POST   /admin/keys                 create {description?, allowed_models?, rate_limit_rpm?} → {key, record}
 *   POST   /admin/keys/:id/disable     and /enable
 *   DELETE /admin/keys/:id
 *   GET    /admin/usage?id=&key_id=&limit=
 *   GET    /admin/usage/summary?group_by=key,model,hour&from=&to=   totals per group (UsageStore.summary)
 *   GET    /admin/video/stats          the video poller's figures: tasks by state, polls, lag, upstream errors
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { Errors, sendError, toGatewayError } from '../errors';
import type { KeyService } from '../keys/key-service';
import { HOUR_MS } from '../stores/usage-rollup';
import type { SummaryDimension, UsageStore, UsageSummaryQuery } from '../stores/usage-store';
import { bodyReader } from '../http/body';
import { requestIdFor } from '../http/request-id';

const newKeyBody = z
  .object({
    description: z.string().max(500).optional(),
    allowed_models: z.array(z.string().min(1)).optional(),
    rate_limit_rpm: z.number().int().positive().optional(),
  })
  .strict();

const readAdminBody = bodyReader({ maxBytes: 64 * 1024, idleMs: 10_000, totalMs: 30_000 });

type AdminReply = { status: number; body: unknown };

const DIMENSIONS: readonly string[] = ['key', 'model', 'hour', 'day'] satisfies SummaryDimension[];
const SUMMARY_PARAMS = new Set(['group_by', 'from', 'to']);
/** A UTC or offset date-time; the summary's bounds must fall on the hour. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `group_by` (non-empty, of key, model and at most one of hour and day), `from` and `to` (on the hour). */
function summaryQuery(params: URLSearchParams): UsageSummaryQuery {
  for (const name of params.keys()) {
    if (!SUMMARY_PARAMS.has(name)) {
      throw Errors.invalidRequest(
        `unknown query parameter '${name.slice(0, 200)}': expected group_by, from, to`,
      );
    }
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
  return { group_by: groupBy as SummaryDimension[], from, to };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw Errors.invalidJson((e as Error).message);
  }
}

export class AdminServer {
  readonly server: Server;
  private readonly token: Buffer;

  constructor(
    token: string,
    private readonly keys: KeyService,
    private readonly usage: UsageStore,
    /** The video poller's figures; absent when this instance runs no poller. */
    private readonly videoStats?: () => Promise<unknown>,
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
      if (!this.authorized(req.headers.authorization)) throw Errors.unauthorized();
      const reply = await this.route(req);
      const body = JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': requestId });
      res.end(body);
    } catch (e) {
      sendError(res, toGatewayError(e), requestId);
    }
  }

  private authorized(header: string | undefined): boolean {
    const presented = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
    return presented.length === this.token.length && timingSafeEqual(presented, this.token);
  }

  private async route(req: IncomingMessage): Promise<AdminReply> {
    const url = new URL(req.url ?? '/', 'http://admin');
    const parts = url.pathname.split('/').filter(Boolean); // ['admin', 'keys', id?, action?]
    const method = req.method ?? 'GET';
    if (parts[0] === 'admin' && parts[1] === 'keys') return this.keysRoute(method, parts.slice(2), req);
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
    if (url.pathname === '/admin/video/stats' && method === 'GET' && this.videoStats) {
      return { status: 200, body: await this.videoStats() };
    }
    throw Errors.notFound(method, url.pathname);
  }

  private async keysRoute(method: string, rest: string[], req: IncomingMessage): Promise<AdminReply> {
    const [id, action] = rest;
    if (!id && method === 'GET') return { status: 200, body: { data: await this.keys.list() } };
    if (!id && method === 'POST') {
      const parsed = newKeyBody.safeParse(parseJson((await readAdminBody(req)).toString('utf8') || '{}'));
      if (!parsed.success) throw Errors.invalidRequest(parsed.error.issues[0]!.message);
      const created = await this.keys.create(parsed.data);
      return { status: 201, body: created };
    }
    if (id && !action && method === 'DELETE') return this.found(id, await this.keys.delete(id));
    if (id && (action === 'disable' || action === 'enable') && method === 'POST') {
      return this.found(id, await this.keys.update(id, { enabled: action === 'enable' }));
    }
    throw Errors.notFound(method, `/admin/keys/${rest.join('/')}`);
  }

  private found(id: string, record: unknown): AdminReply {
    if (!record) throw Errors.keyNotFound(id);
    return { status: 200, body: record };
  }
}
