/**
 * The PROXY protocol (v1 text and v2 binary, as HAProxy's `send-proxy` / `send-proxy-v2` and AWS NLB
 * send it) on the gateway's listener: every connection must open with the header, whose source address
 * then stands for the connection's peer. Header framing is read here (how many bytes it spans); the
 * header itself is decoded by proxy-protocol-js. A connection that opens with anything else, or not
 * within the header timeout, or from a peer outside `trusted_proxies` when that list is set, is closed
 * unanswered, as HAProxy's `accept-proxy` does: guessing would let any client name its own address.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import { fromByteArray } from 'ipaddr.js';
import {
  Command,
  IPv4ProxyAddress,
  IPv6ProxyAddress,
  V1ProxyProtocol,
  V2ProxyProtocol,
} from 'proxy-protocol-js';

const V2_SIGNATURE = Buffer.from('\r\n\r\n\0\r\nQUIT\n', 'latin1');
const V2_FIXED = 16;
const V1_PREFIX = Buffer.from('PROXY ', 'latin1');
/** The longest v1 line the specification allows, CRLF included. */
const V1_MAX = 107;

const sources = new WeakMap<Socket, string>();

/** The source address a PROXY header gave this connection (undefined without one, or for LOCAL/UNKNOWN). */
export const proxiedAddress = (socket: Socket): string | undefined => sources.get(socket);

/** What the bytes read so far hold: a whole header, not yet enough, or something that is no header. */
type Framing =
  | { readonly state: 'whole'; readonly length: number; readonly source: string | undefined }
  | { readonly state: 'partial' }
  | { readonly state: 'invalid'; readonly reason: string };

function frame(bytes: Buffer): Framing {
  const v2 = bytes.subarray(0, V2_SIGNATURE.length);
  if (V2_SIGNATURE.subarray(0, v2.length).equals(v2)) return frameV2(bytes);
  const v1 = bytes.subarray(0, V1_PREFIX.length);
  if (V1_PREFIX.subarray(0, v1.length).equals(v1)) return frameV1(bytes);
  return { state: 'invalid', reason: 'the connection did not open with a PROXY protocol header' };
}

function frameV2(bytes: Buffer): Framing {
  if (bytes.length < V2_FIXED) return { state: 'partial' };
  const length = V2_FIXED + bytes.readUInt16BE(14);
  if (bytes.length < length) return { state: 'partial' };
  const header = V2ProxyProtocol.parse(bytes.subarray(0, length));
  const address = header.proxyAddress;
  const isIp = address instanceof IPv4ProxyAddress || address instanceof IPv6ProxyAddress;
  // LOCAL: the balancer's own connection (a health check); its address is the socket's.
  const source =
    header.command === Command.PROXY && isIp
      ? fromByteArray([...address.sourceAddress.address]).toString()
      : undefined;
  return { state: 'whole', length, source };
}

function frameV1(bytes: Buffer): Framing {
  const end = bytes.indexOf('\r\n', 0, 'latin1');
  if (end < 0) {
    return bytes.length < V1_MAX
      ? { state: 'partial' }
      : { state: 'invalid', reason: 'PROXY v1 line too long' };
  }
  const line = bytes.toString('latin1', 0, end + 2);
  // UNKNOWN: the balancer could not tell (or is checking health); the socket's address stands.
  if (line.startsWith('PROXY UNKNOWN')) return { state: 'whole', length: end + 2, source: undefined };
  return { state: 'whole', length: end + 2, source: V1ProxyProtocol.parse(line).source.ipAddress };
}

/** Frames, never throws: a header the decoder refuses is an invalid opening. */
function safeFrame(bytes: Buffer): Framing {
  try {
    return frame(bytes);
  } catch (e) {
    return { state: 'invalid', reason: (e as Error).message };
  }
}

export interface ProxyProtocolOptions {
  /** How long a connection may take to send its header. */
  readonly headerTimeoutMs: number;
  /** Which peers may send headers; all when undefined. */
  readonly trusted: ((address: string) => boolean) | undefined;
  /** Told of each connection closed for its opening (never of a client that left first). */
  readonly onRefused: (peer: string | undefined, reason: string) => void;
}

/**
 * A TCP listener that reads each connection's PROXY header, then hands the connection, with the bytes
 * after the header put back, to the HTTP server.
 */
export function proxyProtocolListener(http: HttpServer, options: ProxyProtocolOptions): NetServer {
  return createServer({ pauseOnConnect: false }, (socket) => {
    const peer = socket.remoteAddress;
    if (options.trusted && !options.trusted(peer ?? '')) {
      options.onRefused(peer, 'PROXY protocol header from an address outside server.trusted_proxies');
      socket.destroy();
      return;
    }
    let read: Buffer = Buffer.alloc(0);
    const refuse = (reason: string): void => {
      done();
      options.onRefused(peer, reason);
      socket.destroy();
    };
    const timer = setTimeout(() => refuse('no PROXY protocol header in time'), options.headerTimeoutMs);
    const onData = (chunk: Buffer): void => {
      read = read.length === 0 ? chunk : Buffer.concat([read, chunk]);
      const framing = safeFrame(read);
      if (framing.state === 'partial') return;
      if (framing.state === 'invalid') return refuse(framing.reason);
      done();
      socket.pause();
      if (framing.source !== undefined) sources.set(socket, framing.source);
      if (read.length > framing.length) socket.unshift(read.subarray(framing.length));
      http.emit('connection', socket);
      socket.resume();
    };
    const done = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', done);
      socket.off('close', done);
    };
    socket.on('data', onData).on('error', done).on('close', done);
  });
}
