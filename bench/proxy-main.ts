/**
 * The command line the benchmark's own proxies share: `--sim <simulator url> [--port N]`, a server on
 * loopback that prints the address it listens on, and a clean stop on SIGTERM or SIGINT.
 */
import { createServer, type RequestListener } from 'node:http';
import { parseArgs } from 'node:util';
import { LOOPBACK } from './ports';

export function runProxy(label: string, handlerFor: (simUrl: string) => RequestListener): void {
  const { values } = parseArgs({
    options: { sim: { type: 'string' }, port: { type: 'string', default: '0' } },
  });
  if (!values.sim) throw new Error('--sim <simulator url> is required');
  const server = createServer(handlerFor(values.sim));
  server.listen(Number(values.port), LOOPBACK, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    console.log(`${label} listening on http://${LOOPBACK}:${port}`);
  });
  const stop = (): void => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
