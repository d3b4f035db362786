/**
 * What the floor and the bound share: an http-proxy-3 server that leaves each response to its caller
 * (selfHandleResponse), a request whose body is read whole for its `model`, and a response relayed with
 * its usage found (a JSON body read whole and parsed; a stream's chunks passed on as they come, one that
 * names usage kept in place of parsing it).
 */
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { createProxyServer, type ProxyServer } from 'http-proxy-3';
// The gateway's own way of handing a read body to http-proxy-3, so these proxies send it as the gateway does.
import { bodySource } from '../core/proxy/proxy-servers';
import { apiPath, SIM_UPSTREAMS } from './upstreams';

/** Upstream credentials by path, as the bare proxy sets them. */
const credentials = new Map(SIM_UPSTREAMS.map((u) => [apiPath(u), u.credential(u.apiKey)]));

/** The usage a response carried: its parsed `usage` member, or the stream chunk naming it. */
export type FoundUsage = unknown;

/** The proxy both use, addressed at the simulator; `onResponse` relays each upstream response. */
export function meteredProxy(
  sim: string,
  onResponse: (upstreamRes: IncomingMessage, req: IncomingMessage, res: ServerResponse) => void,
): ProxyServer {
  const proxy = createProxyServer({
    target: sim,
    agent: new Agent({ keepAlive: true, maxSockets: 256 }),
    changeOrigin: true,
    selfHandleResponse: true,
  });
  proxy.on('proxyRes', onResponse);
  proxy.on('error', (_err, _req, res) => res.destroy());
  return proxy;
}

/**
 * Reads the request's body and finds its `model`, then calls `send` with both; answers 404 for a path
 * no simulated upstream has and 400 for a body without a model.
 */
export function withModel(
  req: IncomingMessage,
  res: ServerResponse,
  send: (body: Buffer, model: string) => void,
): void {
  const credential = credentials.get(req.url ?? '');
  if (req.method !== 'POST' || !credential) return void res.writeHead(404).end();
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const { model } = JSON.parse(body.toString('utf8')) as { model?: unknown };
    if (typeof model !== 'string') return void res.writeHead(400).end();
    Object.assign(req.headers, credential, { 'content-length': String(body.length) });
    send(body, model);
  });
}

/** Sends the request with its already-read body. */
export function forward(proxy: ProxyServer, req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  proxy.web(req, res, { buffer: bodySource(body) });
}

/**
 * Relays an upstream response with `extraHeaders` added, and calls `ended` with its status and the
 * usage found once the client has all of it.
 */
export function relayMetered(
  upstreamRes: IncomingMessage,
  res: ServerResponse,
  extraHeaders: Readonly<Record<string, string>>,
  ended: (status: number, usage: FoundUsage) => void,
): void {
  const headers = { ...upstreamRes.headers, ...extraHeaders };
  const status = upstreamRes.statusCode ?? 502;
  if (String(headers['content-type']).includes('text/event-stream')) {
    res.writeHead(status, headers);
    let usage: FoundUsage;
    upstreamRes.on('data', (chunk: Buffer) => {
      if (chunk.includes('usage')) usage = chunk;
      res.write(chunk);
    });
    upstreamRes.on('end', () => {
      res.end();
      ended(status, usage);
    });
    return;
  }
  const chunks: Buffer[] = [];
  upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk));
  upstreamRes.on('end', () => {
    const body = Buffer.concat(chunks);
    const { usage } = JSON.parse(body.toString('utf8')) as { usage?: unknown };
    headers['content-length'] = String(body.length);
    res.writeHead(status, headers).end(body);
    ended(status, usage);
  });
}
