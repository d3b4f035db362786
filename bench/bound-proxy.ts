/**
 * The bound: the floor (floor-proxy.ts) plus the cheapest form of what the gateway must also do for every
 * request, so that its cost is a lower bound for any gateway on http-proxy-3 that keeps those duties:
 * the key looked up in a Map, a count per key, a request id (generated, and returned as `x-request-id`),
 * one usage record serialised and appended to a file in batches, and, unless `BOUND_ACCESS=off`, one
 * access line written as the gateway writes its own (its compiled serializer, core/observability/
 * access-line.ts, into its logger's output, core/base/log-output.ts). It leaves out everything else the gateway does: validation, model
 * tables, timeouts, retries, metrics, budgets, prices, revocation, error bodies.
 *
 * Environment (targets.ts sets it): BOUND_KEY, the one key accepted; BOUND_RECORDS, the usage file;
 * BOUND_ACCESS, `on` or `off`. Usage: `node dist/bench/bound-proxy.js --sim http://127.0.0.1:PORT`.
 */
import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import type { IncomingMessage, RequestListener } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createLogger, lineOutput } from '../core/base/logger';
import { ACCESS_MESSAGE, accessLine, INFO } from '../core/observability/access-line';
import { forward, meteredProxy, relayMetered, withModel, type FoundUsage } from './metered-proxy';
import { runProxy } from './proxy-main';

const { BOUND_KEY, BOUND_RECORDS, BOUND_ACCESS } = process.env;
if (!BOUND_KEY || !BOUND_RECORDS) throw new Error('BOUND_KEY and BOUND_RECORDS must be set');

/** How often the queued usage records are appended to their file. */
const FLUSH_EVERY_MS = 100;

const keys = new Map([[`Bearer ${BOUND_KEY}`, { id: 'key_bound' }]]);
const requestsByKey = new Map<string, number>();
/** The access lines go as the gateway's do: its compiled serializer, its logger's output. */
const access = BOUND_ACCESS === 'off' ? undefined : lineOutput(createLogger('info', 'json'));

let records: string[] = [];
setInterval(() => {
  if (records.length === 0) return;
  void appendFile(BOUND_RECORDS, records.join(''));
  records = [];
}, FLUSH_EVERY_MS).unref();

interface Call {
  readonly id: string;
  readonly keyId: string;
  readonly model: string;
  readonly startedAt: number;
  readonly bytesIn: number;
}

const CALL = Symbol('call');
type CallRequest = IncomingMessage & { [CALL]: Call };

/** A JSON response's token counts; a stream's usage chunk (found, not parsed) counts its length. */
function tokens(usage: FoundUsage): [prompt: number, completion: number] {
  if (Buffer.isBuffer(usage)) return [0, usage.length];
  const counts = (usage ?? {}) as { prompt_tokens?: number; completion_tokens?: number };
  return [counts.prompt_tokens ?? 0, counts.completion_tokens ?? 0];
}

/** The call's usage record and access line, once its response is complete. */
function finish(req: CallRequest, status: number, usage: FoundUsage): void {
  const call = req[CALL];
  const durationMs = Math.round((performance.now() - call.startedAt) * 10) / 10;
  const [prompt, completion] = tokens(usage);
  const record = {
    id: call.id,
    key_id: call.keyId,
    model: call.model,
    status,
    prompt_tokens: prompt,
    completion_tokens: completion,
    created_at: new Date().toISOString(),
  };
  records.push(`${JSON.stringify(record)}\n`);
  access?.write(
    accessLine({
      level: INFO,
      time: Date.now(),
      request_id: call.id,
      method: req.method,
      path: req.url ?? '',
      client: req.socket.remoteAddress ?? '',
      status,
      outcome: 'ok',
      code: undefined,
      model: call.model,
      key_id: call.keyId,
      duration_ms: durationMs,
      gateway_ms: durationMs,
      upstream_ms: 0,
      bytes_in: call.bytesIn,
      bytes_out: req.socket.bytesWritten,
      prompt_tokens: prompt,
      completion_tokens: completion,
      trace_id: undefined,
      msg: ACCESS_MESSAGE,
    }),
  );
}

function handler(sim: string): RequestListener {
  const proxy = meteredProxy(sim, (upstreamRes, req, res) => {
    const call = (req as CallRequest)[CALL];
    relayMetered(upstreamRes, res, { 'x-request-id': call.id }, (status, usage) =>
      finish(req as CallRequest, status, usage),
    );
  });
  return (req, res) => {
    const startedAt = performance.now();
    const key = keys.get(req.headers.authorization ?? '');
    if (!key) return void res.writeHead(401).end();
    requestsByKey.set(key.id, (requestsByKey.get(key.id) ?? 0) + 1);
    withModel(req, res, (body, model) => {
      (req as CallRequest)[CALL] = {
        id: randomUUID(),
        keyId: key.id,
        model,
        startedAt,
        bytesIn: body.length,
      };
      forward(proxy, req, res, body);
    });
  };
}

runProxy('bound proxy', handler);
