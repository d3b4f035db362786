import type { IncomingMessage } from 'node:http';

/** The address the request came in on, for the rare client that sends no Host header. */
function socketHost(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

/**
 * `http://<host>` as the client reached the simulator (its Host header), so the URLs the simulator hands
 * out (a video, a batch's results) work through port mappings and from other machines alike.
 */
export const requestOrigin = (req: IncomingMessage): string =>
  `http://${req.headers.host ?? socketHost(req)}`;
