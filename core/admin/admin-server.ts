/**
 * The operators' API, on its own listener (loopback by default), guarded by the admin token:
 *   GET    /admin/keys                 list (never the full keys)
 *   POST   /admin/keys                 create {description?, allowed_models?, rate_limit_rpm?} → {key, record}
 *   POST   /admin/keys/:id/disable     and /enable
 *   DELETE /admin/keys/:id
 *   GET    /admin/usage?id=&key_id=&limit=
 *   GET    /admin/video/stats          the video poller's figures: tasks by state, polls, lag, upstream errors
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { Errors, sendError, toGatewayError } from '../errors';
import type { KeyService } from '../keys/key-service';
import type { UsageStore } from '../stores/usage-store';
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
    if (parts[0] === 'admin' && parts[1] === 'usage' && method === 'GET') {
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
