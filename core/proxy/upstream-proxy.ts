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
    // The exchange rides in the per-request options; it then listens to its upstream request itself.
    this.proxy.on('proxyReq', (proxyReq, _req, _res, options, socket) =>
      exchangeOf(options)?.attach(proxyReq, socket),
    );
    // Errors reach each exchange through the callback it passes to web(); these events need a listener
    // only so that http-proxy-3 does not throw, and the exchange has already ended when they fire.
    this.proxy.on('econnreset', () => undefined);
    this.proxy.on('error', () => undefined);
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
