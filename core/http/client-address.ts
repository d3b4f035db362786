/**
 * The client's address behind load balancers. The socket's peer (or the address a PROXY protocol header
 * gave for the connection) is the client unless it is one of `server.trusted_proxies`; then the
 * configured header (`X-Forwarded-For`, or RFC 7239 `Forwarded`) is walked from the right, each trusted
 * hop skipped, and the first address not trusted is the client, as nginx's `real_ip_recursive`, Envoy's
 * `xff_num_trusted_hops` and Kong's `trusted_ips` do. From an untrusted peer the headers are ignored,
 * so a client cannot choose the address it is counted under.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { compile } from '@fastify/proxy-addr';
import parseForwarded from 'forwarded-parse';
import { isIP } from 'node:net';
import { proxiedAddress } from './proxy-protocol';

export type RealIpHeader = 'x-forwarded-for' | 'forwarded';

export interface ClientAddressOptions {
  /** CIDRs (IPv4 or IPv6) or single addresses of the balancers in front of the gateway. */
  readonly trusted_proxies: readonly string[];
  readonly real_ip_header: RealIpHeader;
  /** Whether upstreams get the client's address in a fresh `X-Forwarded-For`. */
  readonly forward_client_address: boolean;
}

/** Header readers: the addresses a header lists, left to right, as its proxies appended them. */
const LISTS: Readonly<Record<RealIpHeader, (value: string) => readonly string[]>> = {
  'x-forwarded-for': (value) => value.split(',').map((entry) => bareAddress(entry.trim())),
  forwarded: (value) => forwardedFor(value),
};

/** `for=` of each element of an RFC 7239 header; a header that does not parse lists nothing. */
function forwardedFor(value: string): readonly string[] {
  try {
    return parseForwarded(value).map((element) => bareAddress(element.for ?? ''));
  } catch {
    return [];
  }
}

/** An address without the port or brackets some proxies add (`[2001:db8::1]:4711`, `192.0.2.43:47011`). */
function bareAddress(entry: string): string {
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    return close < 0 ? entry : entry.slice(1, close);
  }
  const colon = entry.indexOf(':');
  return colon > 0 && entry.indexOf(':', colon + 1) < 0 ? entry.slice(0, colon) : entry;
}

export class ClientAddresses {
  private readonly trusted: ((address: string, hop: number) => boolean) | undefined;
  private readonly list: (value: string) => readonly string[];
  private readonly header: RealIpHeader;
  readonly forwardUpstream: boolean;

  constructor(options: ClientAddressOptions) {
    this.trusted = options.trusted_proxies.length > 0 ? compile([...options.trusted_proxies]) : undefined;
    this.header = options.real_ip_header;
    this.list = LISTS[options.real_ip_header];
    this.forwardUpstream = options.forward_client_address;
  }

  /** A test of the peers `trusted_proxies` names; undefined when it names none. */
  get trustTest(): ((address: string) => boolean) | undefined {
    const trusted = this.trusted;
    return trusted && ((address) => trusted(address, 0));
  }

  /** The client's address for this request. */
  of(req: IncomingMessage): string {
    const peer = peerAddress(req.socket);
    const trusted = this.trusted;
    if (!trusted || !trusted(peer, 0)) return peer;
    const value = req.headers[this.header];
    if (typeof value !== 'string' || value === '') return peer;
    return this.walk(peer, this.list(value), trusted);
  }

  /**
   * From the right: a trusted hop passes the request on, the first untrusted one is the client. An entry
   * that is no address (`unknown`, an obfuscated name, garbage) stops the walk at the hop that wrote it.
   */
  private walk(peer: string, hops: readonly string[], trusted: (a: string, i: number) => boolean): string {
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!trusted(hop, hops.length - i)) return client;
    }
    return client;
  }
}

/** The connection's own address: a PROXY protocol header's source when there was one. */
export function peerAddress(socket: Socket): string {
  return proxiedAddress(socket) ?? socket.remoteAddress ?? 'unknown';
}
