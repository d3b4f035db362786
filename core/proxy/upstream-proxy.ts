/**
 * The gateway's only way upstream: one http-proxy-3 server on its plain node:http path (which destroys the
 * upstream request when the client goes away), with responses handled by the gateway (selfHandleResponse)
 * so usage can be read and streams relayed event by event.
 */
import { createProxyServer, type ProxyServer } from 'http-proxy-3';
import type { GatewayContext } from '../context';
import { Errors } from '../errors';
import type { UpstreamRequest } from '../plugin';
import type { Upstream } from '../upstream/upstream';
import { Exchange, exchangeOf, type ExchangeSettings } from './exchange';
import type { StreamRelay } from './stream-relay';

export class UpstreamProxy {
  private readonly proxy: ProxyServer;
  private readonly openStreams = new Set<StreamRelay>();

  constructor() {
    this.proxy = createProxyServer({ selfHandleResponse: true, ignorePath: true, changeOrigin: true });
    this.proxy.on('proxyReq', (proxyReq, req, _res, _options, socket) =>
      exchangeOf(req)?.attach(proxyReq, socket),
    );
    this.proxy.on('proxyRes', (proxyRes, req) => exchangeOf(req)?.onResponse(proxyRes));
    // Emitted when the client vanished while the upstream request failed; the exchange already ended.
    this.proxy.on('econnreset', () => undefined);
    this.proxy.on('error', (err, req) => {
      if (req) exchangeOf(req)?.onProxyError(err);
    });
  }

  /** Forwards the request and resolves when the exchange is over. */
  forward(
    ctx: GatewayContext,
    upstream: Upstream,
    request: UpstreamRequest,
    settings: Omit<ExchangeSettings, 'onStream'>,
  ): Promise<void> {
    const onStream = (relay: StreamRelay, open: boolean) =>
      open ? this.openStreams.add(relay) : this.openStreams.delete(relay);
    return new Exchange(ctx, upstream, request, { ...settings, onStream }).run(this.proxy);
  }

  /** Ends every open stream with the API's error frame (shutdown after the grace period). */
  endOpenStreams(): void {
    for (const relay of [...this.openStreams]) relay.end('shutdown', Errors.shuttingDown());
  }

  get openStreamCount(): number {
    return this.openStreams.size;
  }
}
