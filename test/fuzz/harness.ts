/**
 * Sends one fuzz case to the real gateway and judges what came back against the request-path properties:
 * an answer in time, never a 5xx of the gateway's own, the contract's exact error body for the gateway's
 * own refusals, no upstream call for a refused or invalid body, and the expected outcome for bodies the
 * contract calls valid or invalid. The simulator runs in-process, so what it received is read from its
 * request log directly (its `GET /_sim/requests` would have to serialise every logged body, and some of
 * these bodies are 300,000 levels deep).
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import type { LoggedRequest } from '../../simulator/request-log';
import type { TestGateway } from '../helpers/gateway';

export type Api = 'chat' | 'messages' | 'images' | 'video' | 'query' | 'route';
export type Auth = 'bearer' | 'x-api-key' | 'none' | 'wrong' | 'basic' | 'bearer-lower' | 'both' | 'dup';
/** What the case must get: a 2xx, a 4xx without any upstream call, or anything but a failure. */
export type Expect = 'accept' | 'reject' | 'any';

/** `{rid}` in a header value is replaced by the request id of the send (e.g. a unique Idempotency-Key). */
export const RID = '{rid}';

export interface FuzzRequest {
  readonly method: string;
  /** The request target, sent as it is (latin1). */
  readonly path: string;
  /** Header lines besides authorization and x-request-id, in order; names may repeat. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer | null;
  readonly auth: Auth;
  /** Send the body with Transfer-Encoding: chunked instead of a Content-Length. */
  readonly chunked?: boolean;
  /** Write the request over a plain socket: for request lines node:http will not send. */
  readonly rawSocket?: boolean;
  /**
   * The x-request-id values to send instead of a fresh valid one (`{rid}` is replaced by that one);
   * an empty list sends none. The gateway keeps an id only when it is 1–128 of [A-Za-z0-9._:-].
   */
  readonly requestIds?: readonly string[];
  /** Over a plain socket: leave out the Host header (HTTP/1.1 requires one). */
  readonly noHost?: boolean;
}

export interface FuzzCase extends FuzzRequest {
  readonly api: Api;
  /** The rule or mutation the case exercises; with the violation it names a failure class. */
  readonly kind: string;
  readonly expect: Expect;
  /** One line for humans. */
  readonly why: string;
}

/** One line for a case, as fast-check prints a counterexample: the request, not a megabyte of bytes. */
export function describe(c: FuzzCase): string {
  const body = c.body ? ` body ${preview(c.body, 200)}` : '';
  const headers = c.headers.map(([n, v]) => `${n}: ${v.length > 40 ? v.slice(0, 40) + '…' : v}`);
  const ids = c.requestIds ? [`x-request-id: ${JSON.stringify(c.requestIds).slice(0, 60)}`] : [];
  const framing = `${c.chunked ? ' chunked' : ''}${c.rawSocket ? ' over a socket' : ''}${c.noHost ? ' without Host' : ''}`;
  return (
    `[${c.kind}, expect ${c.expect}] ${c.method} ${c.path} {auth ${c.auth}` +
    `${[...ids, ...headers].map((h) => `; ${h}`).join('')}}${framing}${body} — ${c.why}`
  );
}

/** The case, printed by fast-check with {@link describe}. */
export const printable = (c: FuzzCase): FuzzCase =>
  Object.assign(c, { [fc.toStringMethod]: () => describe(c) });

export interface Answer {
  /** null when no answer came: the connection failed, closed, or the time ran out. */
  readonly status: number | null;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  readonly error?: string;
  readonly ms: number;
}

export interface Observation {
  readonly requestId: string;
  readonly answer: Answer;
  /** What the simulator received for this case. */
  readonly upstream: readonly LoggedRequest[];
}

export interface Violation {
  /** `<property>/<kind>`: what failed, for which kind of case. */
  readonly cls: string;
  readonly message: string;
}

export const TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_MS ?? 15_000);

let counter = 0;
const runTag = Math.random().toString(36).slice(2, 8);
/** A fresh x-request-id, valid for the gateway (1–128 of [A-Za-z0-9._:-]). */
export const newRequestId = (): string => `fz-${runTag}-${++counter}`;

function authHeaders(auth: Auth, key: string): [string, string][] {
  switch (auth) {
    case 'bearer':
      return [['authorization', `Bearer ${key}`]];
    case 'x-api-key':
      return [['x-api-key', key]];
    case 'wrong':
      return [['authorization', `Bearer sk-${'0'.repeat(43)}`]];
    case 'none':
      return [];
    case 'basic':
      return [['authorization', `Basic ${Buffer.from(`${key}:`).toString('base64')}`]];
    case 'bearer-lower':
      return [['authorization', `bearer   ${key} `]];
    case 'both':
      return [
        ['authorization', `Bearer sk-${'1'.repeat(43)}`],
        ['x-api-key', key],
      ];
    case 'dup':
      return [
        ['authorization', `Bearer ${key}`],
        ['authorization', `Bearer sk-${'2'.repeat(43)}`],
      ];
  }
}

/** Every header line of the request, in order. */
export function headerLines(req: FuzzRequest, key: string, requestId: string): [string, string][] {
  const fill = (v: string): string => v.split(RID).join(requestId);
  const ids = req.requestIds ?? [requestId];
  return [
    ...authHeaders(req.auth, key),
    ...ids.map((id): [string, string] => ['x-request-id', fill(id)]),
    ...req.headers.map(([n, v]): [string, string] => [n, fill(v)]),
  ];
}

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id the answer must carry: the one sent when it is valid, else undefined (a fresh one). */
export function keptRequestId(req: FuzzRequest, requestId: string): string | undefined {
  const ids = (req.requestIds ?? [requestId]).map((id) => id.split(RID).join(requestId).trim());
  // Repeated headers reach the gateway joined with ', ', which is never a valid id.
  return ids.length === 1 && SANE_ID.test(ids[0]!) ? ids[0] : undefined;
}

function viaHttp(url: URL, req: FuzzRequest, lines: [string, string][]): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: Omit<Answer, 'ms'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...answer, ms: Date.now() - started });
    };
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of lines) {
      const had = headers[name];
      headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
    }
    if (req.body && !req.chunked) headers['content-length'] = String(req.body.length);
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    const r = httpRequest({
      host: url.hostname,
      port: url.port,
      method: req.method,
      path: req.path,
      headers,
      agent: false,
    });
    const timer = setTimeout(() => {
      done({ status: null, headers: {}, body: Buffer.alloc(0), error: `no answer in ${TIMEOUT_MS} ms` });
      r.destroy();
    }, TIMEOUT_MS);
    r.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const finish = (): void =>
        done({ status: res.statusCode ?? null, headers: res.headers, body: Buffer.concat(chunks) });
      res.on('end', finish);
      // A body cut after the headers still counts as an answer with that status.
      res.on('error', finish);
      res.on('close', finish);
    });
    r.on('error', (e) => done({ status: null, headers: {}, body: Buffer.alloc(0), error: e.message }));
    if (req.body && req.chunked) {
      // Two chunks, so the body really arrives in pieces.
      const half = Math.floor(req.body.length / 2);
      if (half > 0) r.write(req.body.subarray(0, half));
      r.end(req.body.subarray(half));
    } else r.end(req.body ?? undefined);
  });
}

/** Parses an HTTP/1.1 response read to the end of the connection. */
function parseRaw(bytes: Buffer): Omit<Answer, 'ms' | 'error'> | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    for (let at = 0; at < body.length;) {
      const eol = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
      if (eol < 0 || !(size > 0)) break;
      parts.push(body.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status: Number(status), headers, body };
}

function viaSocket(url: URL, req: FuzzRequest, lines: [string, string][]): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseRaw(Buffer.concat(chunks));
      resolve({
        ...(parsed ?? { status: null, headers: {}, body: Buffer.concat(chunks) }),
        ...(parsed ? {} : { error: error ?? 'the connection closed without an HTTP answer' }),
        ms: Date.now() - started,
      });
    };
    const timer = setTimeout(() => done(`no answer in ${TIMEOUT_MS} ms`), TIMEOUT_MS);
    const body = req.body ?? Buffer.alloc(0);
    // A case that frames its own body (two Content-Lengths, chunked and a length) keeps its headers.
    const framed = lines.some(([n]) => ['content-length', 'transfer-encoding'].includes(n.toLowerCase()));
    const head =
      `${req.method} ${req.path} HTTP/1.1\r\n${req.noHost ? '' : `host: ${url.host}\r\n`}connection: close\r\n` +
      lines.map(([n, v]) => `${n}: ${v}\r\n`).join('') +
      (framed ? '\r\n' : `content-length: ${body.length}\r\n\r\n`);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => done());
    socket.on('close', () => done());
    socket.on('error', (e) => done(e.message));
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  });
}

/**
 * Poller traffic: the gateway's background polls of video tasks. They carry the request id of the submit
 * that made the task (or none), never the id of the case being sent.
 */
const isPoll = (e: LoggedRequest, requestId: string): boolean =>
  e.method === 'GET' && e.request_id !== requestId;

/**
 * Sends the case and collects what the simulator received meanwhile, except the poller's traffic. Cases
 * run one at a time, so that is this case's upstream traffic, including video submits, which go upstream
 * without the request id.
 */
export async function run(gw: TestGateway, req: FuzzRequest): Promise<Observation> {
  const requestId = newRequestId();
  const seen: LoggedRequest[] = [];
  const log = gw.sim.log;
  const add = log.add.bind(log);
  log.add = (entry) => {
    if (!isPoll(entry, requestId)) seen.push(entry);
    return add(entry);
  };
  try {
    const url = new URL(gw.url);
    const lines = headerLines(req, gw.key, requestId);
    const answer = await (req.rawSocket ? viaSocket(url, req, lines) : viaHttp(url, req, lines));
    return { requestId, answer, upstream: seen };
  } finally {
    log.add = add;
  }
}

const header = (a: Answer, name: string): string | undefined => {
  const v = a.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

const UNAUTHORIZED = Buffer.from('{"error":{"code":"unauthorized","message":"unauthorized","type":"error"}}');

/** The body is exactly `{"error":{"code":string,"message":string,"type":"error"}}`; else what is wrong. */
export function errorShapeProblem(a: Answer): string | undefined {
  const type = header(a, 'content-type');
  if (type !== 'application/json') return `content-type ${type}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(a.body.toString('utf8'));
  } catch {
    return `body is not JSON: ${preview(a.body)}`;
  }
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(parsed) || Object.keys(parsed).join() !== 'error') return `body keys: ${preview(a.body)}`;
  const error = parsed.error;
  if (!isObj(error) || Object.keys(error).sort().join() !== 'code,message,type')
    return `error keys: ${preview(a.body)}`;
  if (typeof error.code !== 'string' || typeof error.message !== 'string' || error.type !== 'error')
    return `error values: ${preview(a.body)}`;
  return undefined;
}

export const preview = (b: Buffer, max = 160): string => {
  const text = JSON.stringify(b.subarray(0, max).toString('latin1'));
  return b.length > max ? `${text}… (${b.length} bytes)` : text;
};

/** Own enumerable keys that something added to Object.prototype (a polluted prototype). */
export const pollution = (): string[] => Object.keys(Object.prototype);

/** Judges one observation; an empty list means every property held. */
export function violations(c: FuzzCase, o: Observation): Violation[] {
  const out: Violation[] = [];
  const v = (property: string, message: string): void =>
    void out.push({ cls: `${property}/${c.kind}`, message });
  const { answer: a, upstream } = o;
  const polluted = pollution();
  if (polluted.length) v('prototype-polluted', `Object.prototype has ${polluted.join(', ')}`);
  if (a.status === null) {
    v('no-answer', a.error ?? 'no answer');
    return out;
  }
  const status = a.status;
  const upstreamStatus = upstream.find((e) => e.status === status)?.status;
  const passedThrough = upstream.length > 0 && upstreamStatus === status;
  if (status >= 500) {
    if (passedThrough) v('upstream-5xx', `the simulator answered ${status} for a body the gateway forwarded`);
    else v('5xx', `status ${status}: ${preview(a.body)}`);
  }
  if (status >= 400 && !passedThrough && c.method !== 'HEAD') {
    const problem = errorShapeProblem(a);
    if (problem) v('error-shape', `status ${status}: ${problem}`);
    // The contract fixes this one: code and message both `unauthorized`.
    else if (status === 401 && !a.body.equals(UNAUTHORIZED))
      v('unauthorized-body', `status 401: ${preview(a.body)}`);
  }
  if (status === 405 && !passedThrough && !header(a, 'allow')) v('allow-header', 'status 405 without Allow');
  const id = header(a, 'x-request-id');
  const kept = keptRequestId(c, o.requestId);
  if (kept !== undefined ? id !== kept : id === undefined || !SANE_ID.test(id) || c.requestIds?.includes(id))
    v('request-id', `status ${status}: x-request-id ${String(id)}, expected ${kept ?? 'a fresh valid id'}`);
  if (status >= 400 && status < 500 && !passedThrough && upstream.length > 0)
    v('upstream-called', `the gateway answered ${status} itself after calling the upstream`);
  if (c.expect === 'reject') {
    if (upstream.length > 0)
      v(
        'forwarded-invalid',
        `status ${status}, and the upstream was called with a body the contract refuses (${c.why})`,
      );
    else if (status < 400)
      v('accepted-invalid', `status ${status} for a request the contract refuses (${c.why})`);
  }
  if (c.expect === 'accept' && (status < 200 || status >= 300))
    v('refused-valid', `status ${status} for a valid request: ${preview(a.body)}`);
  return out;
}

/** Upstream refusals of bodies the contract leaves open: not failures, but worth a look. */
export function upstreamRefusal(c: FuzzCase, o: Observation): string | undefined {
  const s = o.answer.status;
  if (c.expect !== 'any' || s === null || s < 400 || s >= 500 || o.upstream.length === 0) return undefined;
  return `upstream answered ${s} (${c.why}): ${preview(o.answer.body, 200)}`;
}
