/**
 * How a listener's address reads in logs and to tests: the address the socket is bound to, as it is
 * (`http://0.0.0.0:8080`, so an operator sees that every interface is open), and a URL a client on this
 * machine can connect to (`http://127.0.0.1:8080`; a wildcard address is not one to connect to).
 */

/** The wildcard hosts: the socket accepts connections on every interface of the machine. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '[::]', '']);

export interface ListenAddress {
  /** The bound address, as given: `http://0.0.0.0:8080`. */
  readonly bound: string;
  /** Where a client on this machine connects: the loopback address for a wildcard host. */
  readonly local: string;
  /** True when the socket is open on every interface (0.0.0.0 or ::). */
  readonly everyInterface: boolean;
}

export function listenAddress(host: string, port: number): ListenAddress {
  const everyInterface = EVERY_INTERFACE.has(host);
  return {
    bound: `http://${bracketed(host || '0.0.0.0')}:${port}`,
    local: `http://${everyInterface ? '127.0.0.1' : bracketed(host)}:${port}`,
    everyInterface,
  };
}

/** An IPv6 literal goes in brackets in a URL. */
const bracketed = (host: string): string =>
  host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
