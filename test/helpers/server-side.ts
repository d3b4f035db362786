/**
 * The gateway's own end of a test's connection, as Node's diagnostics channels show it: the socket a
 * listener accepted for a client's socket, and the request the HTTP server parsed for a request id. A
 * test that must act once the gateway has read something (a piece of a header, the start of a body)
 * waits on these instead of pausing and hoping the gateway got there.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Teardown } from './gateway';
import { until } from './wait';

/** A client socket's address as the server sees it from the other end. */
const peerKey = (address: string | undefined, port: number | undefined): string => `${address}:${port}`;

/**
 * From now until the test ends, the sockets every listener of this process accepts; the function
 * returned resolves with the one at the other end of `client` (a connected socket).
 */
export function acceptedSockets(t: Teardown): (client: Socket) => Promise<Socket> {
  const accepted = new Map<string, Socket>();
  const onSocket = (message: unknown): void => {
    const { socket } = message as { socket: Socket };
    accepted.set(peerKey(socket.remoteAddress, socket.remotePort), socket);
  };
  subscribe('net.server.socket', onSocket);
  t.teardown(() => unsubscribe('net.server.socket', onSocket));
  return async (client) => {
    const key = peerKey(client.localAddress, client.localPort);
    const found = await until(
      () => accepted.get(key),
      (socket) => socket !== undefined,
      { what: `the server's end of the connection from ${key}` },
    );
    return found!;
  };
}

/**
 * From now until the test ends, the requests every HTTP server of this process receives; the function
 * returned resolves with the one whose `x-request-id` is `id`, as soon as its headers are parsed.
 */
export function receivedRequests(t: Teardown): (id: string) => Promise<IncomingMessage> {
  const received = new Map<string, IncomingMessage>();
  const onRequest = (message: unknown): void => {
    const { request } = message as { request: IncomingMessage };
    const id = request.headers['x-request-id'];
    if (typeof id === 'string') received.set(id, request);
  };
  subscribe('http.server.request.start', onRequest);
  t.teardown(() => unsubscribe('http.server.request.start', onRequest));
  return async (id) => {
    const found = await until(
      () => received.get(id),
      (request) => request !== undefined,
      { what: `a request with x-request-id ${id}` },
    );
    return found!;
  };
}
