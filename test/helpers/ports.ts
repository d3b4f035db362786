/**
 * Ports in tests. A server binds port 0 and is reached at the address it reports: a port picked free
 * and released beforehand can be taken by another test (or another instance of the same one) before
 * the server binds it. Two cases cannot do that, and are handled here:
 * - a URL where nothing listens, for a refused connection: `refusedUrl()`;
 * - a server whose port must be known before it starts (a redis-server restarted on the same address, a
 *   console whose redirect_uri names its own port): `belowEphemeral()` picks one outside the range the
 *   kernel hands out for port 0, so no port-0 bind anywhere can take it, and tries another when the
 *   server reports it in use.
 */
import { readFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';

/**
 * Nothing listens on port 1 (tcpmux, long unused) on these machines, and the kernel never hands it out
 * for a port-0 bind (it is far below ip_local_port_range): a connection there is refused, every time.
 */
export const REFUSED_PORT = 1;

/** `http://127.0.0.1:1` and `path`: an address whose connections are refused. */
export const refusedUrl = (path = '', scheme = 'http'): string =>
  `${scheme}://127.0.0.1:${REFUSED_PORT}${path}`;

/** The lowest port the kernel may hand out for a port-0 bind (32768 where it cannot be read). */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) || 32_768;
  } catch {
    return 32_768;
  }
}

/** Above the ports services and other tests name (6379, 8080, 9100…); below the ephemeral range. */
const LOWEST = 20_000;

/** Raised by `start` when the port it was given is taken: `belowEphemeral` then tries another. */
export class PortInUse extends Error {}

/**
 * Runs `start` on a random port below the ephemeral range; when it throws `PortInUse`, on another, up to
 * `attempts` times. Resolves with what `start` resolved with.
 */
export async function belowEphemeral<T>(start: (port: number) => Promise<T>, attempts = 20): Promise<T> {
  const high = ephemeralLow();
  const low = Math.min(LOWEST, Math.max(1_024, high - 1_000));
  const tried: number[] = [];
  for (let i = 0; i < attempts; i++) {
    const port = randomInt(low, high);
    tried.push(port);
    try {
      return await start(port);
    } catch (e) {
      if (!(e instanceof PortInUse)) throw e;
    }
  }
  throw new Error(`every port tried was in use: ${tried.join(', ')}`);
}
