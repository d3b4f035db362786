/**
 * Where a traced gateway's spans go in a benchmark: an OTLP/HTTP endpoint that reads each export and
 * answers it as a collector would, so the gateway's exporter does all its work (encode, send, wait), and
 * counts the exports, to show spans were sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOOPBACK } from './ports';

export interface OtlpSink {
  /** For OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. */
  readonly url: string;
  /** Exports received so far. */
  exports(): number;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let exports = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${LOOPBACK}:${port}/v1/traces`,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
