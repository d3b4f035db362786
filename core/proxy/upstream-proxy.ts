/**
 * The gateway's way upstream for client requests: http-proxy-3 on its plain node:http path (which
 * destroys the upstream request when the client goes away; a server per upstream URL, proxy-servers.ts),
 * with responses handled by the gateway
 * (selfHandleResponse) so usage can be read and streams relayed event by event. Task submits and polls,
 * which no client request carries, go through the same upstream's agent and timeouts
 * (core/upstream/upstream-call.ts).
 */
import type { AttemptCause } from '../request/request-trace';
import type { ServedRequest } from '../request/served-request';
import type { UpstreamRequest } from '../contracts/upstream';
import { Errors, type GatewayError } from '../base/errors';
import type { Upstream } from '../upstream/upstream';
import {
  Exchange,
  isStaleConnection,
  STALE_CONNECTION,
  type AttemptResult,
  type ExchangeSettings,
} from './exchange';
import { OpenStreams, type OpenStream } from './open-streams';
import { ProxyServers } from './proxy-servers';
import type { StreamRelay } from './stream-relay';

/** Resends of a request whose kept-alive connection turned out closed. */
const MAX_RESENDS = 2;

const RESEND: AttemptCause = Object.freeze({ kind: 'resend', reason: STALE_CONNECTION });

export class UpstreamProxy {
  private readonly servers = new ProxyServers();
  /** With their keys, so a revoked key's streams can be ended (see key-revocation.ts). */
  private readonly streams = new OpenStreams();

  /**
   * Forwards the request and resolves when the exchange is over: with a failure of which nothing was
   * sent to the client (the caller retries it or delivers it), or once the client has its response.
   * A request the upstream never read, its kept-alive connection closed as the request went out, is sent
   * again on a new one (see STALE_CONNECTION): several idle sockets may close together, hence up to two.
   */
  forward(
    ctx: ServedRequest,
    upstream: Upstream,
    request: UpstreamRequest,
    settings: Omit<ExchangeSettings, 'onStream'>,
    why: AttemptCause,
  ): Promise<AttemptResult> {
    const keyId = ctx.key?.id;
    let open: OpenStream | undefined;
    const onStream = (relay: StreamRelay, opened: boolean): void => {
      if (opened) open = this.streams.add(relay, keyId);
      else if (open) this.streams.remove(open);
    };
    // Written out, not spread: a spread with a member added made a new hidden class on every request.
    const exchange: ExchangeSettings = { api: settings.api, phases: settings.phases, onStream };
    // One promise for the attempt and its resends, settled by the exchanges' callbacks.
    return new Promise((resolve, reject) => {
      const send = (cause: AttemptCause, resent: number): void => {
        const done = (result: AttemptResult): void => {
          if (resent < MAX_RESENDS && isStaleConnection(result) && !ctx.res.destroyed) {
            // Sent once the failed exchange has unwound; a resend that throws rejects, as the first does.
            Promise.resolve()
              .then(() => send(RESEND, resent + 1))
              .catch(reject);
          } else resolve(result);
        };
        new Exchange(ctx, upstream, request, exchange, cause).run(this.servers, done, reject);
      };
      send(why, 0);
    });
  }

  /** Ends every open stream with the API's error frame (shutdown after the grace period). */
  endOpenStreams(): void {
    for (const relay of this.streams.relays()) relay.stop('shutdown', Errors.shuttingDown());
  }

  /** Ends key `keyId`'s open streams with the API's error frame carrying `error` (the key was revoked). */
  endStreamsOf(keyId: string, error: GatewayError): void {
    for (const relay of this.streams.relays(keyId)) relay.stop('key_revoked', error);
  }

  hasOpenStreams(keyId: string): boolean {
    return this.streams.hasKey(keyId);
  }

  /** The ids of the keys that have streams open now. */
  keysWithOpenStreams(): string[] {
    return this.streams.keys();
  }

  get openStreamCount(): number {
    return this.streams.size;
  }
}
