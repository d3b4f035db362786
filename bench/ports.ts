/** Loopback ports for the benchmark's servers: finding a free one and waiting until one accepts. */
import { createServer, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** The loopback address every server binds to and every request goes to. */
export const LOOPBACK = '127.0.0.1';

/**
 * A port that was free a moment ago. For servers that must be told their port up front (the gateway
 * reads PORT / ADMIN_PORT and logs nothing at `warn` level that would reveal a port it picked itself).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, LOOPBACK);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once `port` accepts a TCP connection; rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (Date.now() > deadline)
      throw new Error(`port ${port} did not accept connections within ${timeoutMs} ms`);
    await sleep(50);
  }
}
