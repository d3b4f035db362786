/**
 * A TCP proxy in front of a server (Redis, here) that can hold everything sent either way while keeping
 * every connection open: a server that stops answering, as behind a stalled network, where the client's
 * connection still looks up and only its commands' timeouts tell. Held bytes are delivered in order on
 * `resume`, as TCP would once the network recovers. Listens on port 0; closed at teardown.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Teardown } from './gateway';

export interface StallingProxy {
  /** The target's URL with the proxy's address, e.g. `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** From now on, bytes sent either way are held. */
  stall(): void;
  /** Delivers what was held, in order, and passes bytes on again. */
  resume(): void;
}

export async function stallingProxy(t: Teardown, target: string): Promise<StallingProxy> {
  const { protocol, hostname, port } = new URL(target);
  let stalled = false;
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const relay = (from: Socket, to: Socket): void => {
    from.on('data', (bytes: Buffer) => {
      if (stalled) held.push(() => to.write(bytes));
      else to.write(bytes);
    });
    from.on('close', () => to.destroy());
    from.on('error', () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    }
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    url: `${protocol}//127.0.0.1:${(server.address() as AddressInfo).port}`,
    stall: () => void (stalled = true),
    resume: () => {
      stalled = false;
      for (const deliver of held.splice(0)) deliver();
    },
  };
}
