/**
 * The floor: the least any metering proxy on http-proxy-3 must do beyond the bare passthrough, and the
 * gateway's lower bound. It reads the request body to find `model` (as the router must), and reads `usage`
 * from the response (as metering must): a JSON body is read whole and parsed, a stream's chunks are passed
 * on as they come and searched for usage. No auth, limits, validation, records or logs.
 * Usage: `node dist/bench/floor-proxy.js --sim http://127.0.0.1:PORT [--port N]`; paths as the bare proxy's.
 */
import { Agent, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createProxyServer } from 'http-proxy-3';
// The gateway's own way of handing a read body to http-proxy-3, so the floor sends it as the gateway does.
import { bodySource } from '../core/proxy/exchange';
import { runProxy } from './proxy-main';
import { apiPath, SIM_UPSTREAMS } from './upstreams';

/** Upstream credentials by path, as the bare proxy sets them. */
const credentials = new Map(SIM_UPSTREAMS.map((u) => [apiPath(u), u.credential(u.apiKey)]));

/** Usage found in a response, kept on the request only so that the work is not optimised away. */
const USAGE = Symbol('usage');
type Metered = IncomingMessage & { [USAGE]?: unknown };

function relayResponse(upstreamRes: IncomingMessage, req: Metered, res: ServerResponse): void {
  const headers = { ...upstreamRes.headers };
  const status = upstreamRes.statusCode ?? 502;
  if (String(headers['content-type']).includes('text/event-stream')) {
    res.writeHead(status, headers);
    upstreamRes.on('data', (chunk: Buffer) => {
      if (chunk.includes('usage')) req[USAGE] = chunk;
      res.write(chunk);
    });
    upstreamRes.on('end', () => res.end());
    return;
  }
  const chunks: Buffer[] = [];
  upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk));
  upstreamRes.on('end', () => {
    const body = Buffer.concat(chunks);
    req[USAGE] = (JSON.parse(body.toString('utf8')) as { usage?: unknown }).usage;
    headers['content-length'] = String(body.length);
    res.writeHead(status, headers).end(body);
  });
}

/** The request handler: the body read whole and `model` found, then proxied with the body as read. */
function handler(sim: string): RequestListener {
  const proxy = createProxyServer({
    target: sim,
    agent: new Agent({ keepAlive: true, maxSockets: 256 }),
    changeOrigin: true,
    selfHandleResponse: true,
  });
  proxy.on('proxyRes', relayResponse);
  proxy.on('error', (_err, _req, res) => res.destroy());
  return (req, res) => {
    const credential = credentials.get(req.url ?? '');
    if (req.method !== 'POST' || !credential) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const { model } = JSON.parse(body.toString('utf8')) as { model?: unknown };
      if (typeof model !== 'string') return void res.writeHead(400).end();
      Object.assign(req.headers, credential, { 'content-length': String(body.length) });
      proxy.web(req, res, { buffer: bodySource(body) });
    });
  };
}

runProxy('floor proxy', handler);
