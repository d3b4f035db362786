/**
 * The gateway's own address for calls it makes through its own pipeline (the lines of a batch it runs),
 * so that each is authenticated, limited, metered and priced exactly like the same call from a client.
 * A listener on 127.0.0.1 of its own hands connections straight to the gateway's HTTP server, past a
 * PROXY protocol reader and whatever address the public listener is bound to.
 */
import { createServer, type Server as NetServer } from 'node:net';
import type { Server } from 'node:http';
import { token } from '../base/token';

export class Loopback {
  private listener: NetServer | undefined;
  private url: string | undefined;

  /** `http://127.0.0.1:<port>`; throws before the gateway listens (nothing can be served yet). */
  get origin(): string {
    if (this.url === undefined) throw new Error('the gateway is not listening yet');
    return this.url;
  }

  async open(server: Server): Promise<void> {
    const listener = createServer((socket) => server.emit('connection', socket));
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(0, '127.0.0.1', () => resolve());
    });
    const address = listener.address();
    if (address === null || typeof address === 'string') throw new Error('loopback listener has no port');
    this.listener = listener;
    this.url = `http://127.0.0.1:${address.port}`;
  }

  /** Stops accepting; connections already handed to the server close with it. */
  close(): void {
    this.listener?.close();
    this.url = undefined;
  }
}

export const LoopbackToken = token<Loopback>('Loopback');
