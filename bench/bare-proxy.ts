/**
 * The benchmark's baseline: the least a proxy on http-proxy-3 can do. `POST <basePath><apiPath>`
 * goes to the same path on the simulator with the upstream's credential set; no parsing, no auth, no
 * metering, just a pipe. Usage: `node dist/bench/bare-proxy.js --sim http://127.0.0.1:PORT [--port N]`.
 */
import { Agent, ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyServer, type ProxyServer } from 'http-proxy-3';
import { runProxy } from './proxy-main';
import { apiPath, SIM_UPSTREAMS } from './upstreams';

/** One http-proxy-3 server per upstream, so the target and headers are fixed once, not built per request. */
function proxiesByPath(simUrl: string): Map<string, ProxyServer> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const proxies = new Map<string, ProxyServer>();
  for (const upstream of SIM_UPSTREAMS) {
    const path = apiPath(upstream);
    const proxy = createProxyServer({
      target: `${simUrl}${path}`,
      agent,
      changeOrigin: true,
      ignorePath: true,
      headers: { ...upstream.credential(upstream.apiKey) },
    });
    proxy.on('error', (_err, _req, res) => fail(res));
    proxies.set(path, proxy);
  }
  return proxies;
}

/** A failed upstream exchange: 502 if nothing was sent yet, else cut the connection. */
function fail(res: ServerResponse | Socket): void {
  if (res instanceof ServerResponse && !res.headersSent) res.writeHead(502).end();
  else res.destroy();
}

function handler(proxies: Map<string, ProxyServer>): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const proxy = req.method === 'POST' ? proxies.get(req.url ?? '') : undefined;
    if (proxy) proxy.web(req, res);
    else res.writeHead(404).end();
  };
}

runProxy('bare proxy', (simUrl) => handler(proxiesByPath(simUrl)));
