/**
 * An upstream's agent is given only the request options that are set: the options a request does set
 * (its TLS trust, its headers) still decide the call, and keep-alive still holds.
 */
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest, type RequestOptions } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { upstreamAgent } from '../../../core/upstream/upstream';
import { upstreamOptions } from '../../../core/upstream/upstream-options';

/** Options as http-proxy-3 hands them on: the TLS and socket ones its target leaves unset are undefined. */
const UNSET = {
  socketPath: undefined,
  pfx: undefined,
  key: undefined,
  passphrase: undefined,
  cert: undefined,
  ciphers: undefined,
  secureProtocol: undefined,
  localAddress: undefined,
};

interface Answer {
  readonly body: string;
  readonly localPort: number;
}

/** Sends a call and resolves with its answer's body and the local port of the socket it went out on. */
function call(
  send: typeof httpRequest | typeof httpsRequest,
  url: string,
  options: RequestOptions,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ body, localPort: req.socket?.localPort ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

t.test('over HTTP, a call with unset options is sent as asked, and its socket kept alive', async (t) => {
  const server = createServer((req, res) =>
    res.end(`${req.method} ${req.url} ${String(req.headers['x-probe'])}`),
  );
  const base = `http://127.0.0.1:${await listening(server)}`;
  const agent = upstreamAgent(upstreamOptions.parse({ plugin: 'any', base_url: base }));
  t.teardown(() => {
    agent.destroy();
    server.close();
  });
  const options = { ...UNSET, agent, method: 'POST', headers: { 'x-probe': 'yes' } };
  const first = await call(httpRequest, `${base}/v1/a`, options);
  const second = await call(httpRequest, `${base}/v1/b`, options);
  t.equal(first.body, 'POST /v1/a yes');
  t.equal(second.body, 'POST /v1/b yes');
  t.equal(second.localPort, first.localPort, 'the second call reused the first socket');
});

t.test('over HTTPS, the trust a call sets decides it', async (t) => {
  const dir = t.testdir();
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile],
  ]);
  const cert = readFileSync(certFile);
  const server = createHttpsServer({ key: readFileSync(keyFile), cert }, (req, res) => res.end(req.url));
  const base = `https://127.0.0.1:${await listening(server)}`;
  const agent = upstreamAgent(upstreamOptions.parse({ plugin: 'any', base_url: base }));
  t.teardown(() => {
    agent.destroy();
    server.close();
  });

  await t.rejects(
    call(httpsRequest, `${base}/untrusted`, { ...UNSET, agent, ca: undefined }),
    { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
    'a self-signed upstream the call does not trust is refused',
  );
  const first = await call(httpsRequest, `${base}/trusted`, { ...UNSET, agent, ca: cert });
  const second = await call(httpsRequest, `${base}/again`, { ...UNSET, agent, ca: cert });
  t.equal(first.body, '/trusted', 'the same upstream is reached with the certificate the call trusts');
  t.equal(second.body, '/again');
  t.equal(second.localPort, first.localPort, 'the second call reused the first socket');
});
