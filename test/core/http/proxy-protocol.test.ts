/**
 * The PROXY protocol on the listener (`server.proxy_protocol`): v1 and v2 headers name the client, which
 * the access line and the failed-auth limit then use; keep-alive requests after the header are served;
 * a connection without a header, or from a peer outside `trusted_proxies`, is closed unanswered.
 */
import t from 'tap';
import { connect, type Socket } from 'node:net';
import {
  Command,
  IPv6Address,
  IPv6ProxyAddress,
  TransportProtocol,
  V2ProxyProtocol,
} from 'proxy-protocol-js';
import { startTestGateway } from '../../helpers/gateway';
import { recordingLogger, type LogLine } from '../../helpers/logs';
import { acceptedSockets } from '../../helpers/server-side';
import { until } from '../../helpers/wait';

/**
 * Sends `chunks` one by one from `localAddress`, each once the gateway has read every byte before it, so
 * each reaches the gateway in a read of its own (a header in two pieces is read as two pieces); resolves
 * with all the gateway answered before closing. `endOf` finds the gateway's end of the connection.
 */
function exchange(
  endOf: (client: Socket) => Promise<Socket>,
  port: number,
  chunks: readonly (string | Uint8Array)[],
  localAddress = '127.0.0.1',
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('close', () => resolve(data));
    // A connection the gateway closes with bytes unread is reset, not ended: closed unanswered all the same.
    socket.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve(data) : reject(e),
    );
    socket.on('connect', () => void send(endOf, socket, chunks).catch(reject));
  });
}

/** Writes `chunks`, each after the gateway has read the ones before; none once it has closed its end. */
async function send(
  endOf: (client: Socket) => Promise<Socket>,
  socket: Socket,
  chunks: readonly (string | Uint8Array)[],
): Promise<void> {
  let sent = 0;
  for (const [i, chunk] of chunks.entries()) {
    if (i > 0) {
      const gatewayEnd = await endOf(socket);
      await until(
        () => gatewayEnd,
        (end) => end.bytesRead >= sent || end.destroyed,
        { what: `the gateway reading the first ${sent} bytes` },
      );
      if (gatewayEnd.destroyed) return;
    }
    socket.write(chunk);
    sent += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
  }
}

const get = (key: string, id: string, close = true): string =>
  `GET /v1/models HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${key}\r\nx-request-id: ${id}\r\n` +
  (close ? 'Connection: close\r\n' : '') +
  '\r\n';

const statuses = (answer: string): string[] => [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]!);

const clientOf = (lines: readonly LogLine[], id: string): unknown =>
  lines.find((l) => l.msg === 'request' && l.request_id === id)?.client;

function v2Header(command: Command, source: string): Uint8Array {
  const bytes = (address: string): number[] => {
    const groups = address.split(':').map((g) => parseInt(g || '0', 16));
    const full = [...groups.slice(0, -1), ...Array<number>(8 - groups.length).fill(0), groups.at(-1)!];
    return full.flatMap((g) => [g >> 8, g & 0xff]);
  };
  return new V2ProxyProtocol(
    command,
    TransportProtocol.STREAM,
    new IPv6ProxyAddress(
      IPv6Address.createFrom(bytes(source)),
      40000,
      IPv6Address.createFrom(bytes('2001:db8::1')),
      443,
    ),
  ).build();
}

t.test('PROXY protocol v1 and v2 name the client', async (t) => {
  const { logger, lines } = recordingLogger('info');
  const gw = await startTestGateway(
    t,
    (doc) => {
      (doc.server as Record<string, unknown>).proxy_protocol = true;
      (doc.server as Record<string, unknown>).trusted_proxies = ['127.0.0.1'];
    },
    { logger },
  );
  const port = Number(new URL(gw.url).port);
  const endOf = acceptedSockets(t);

  const v1 = await exchange(endOf, port, [
    'PROXY TCP4 203.0.113.9 127.0.0.1 5555 8080\r\n',
    get(gw.key, 'pp-v1'),
  ]);
  t.strictSame(statuses(v1), ['200'], 'v1: served');
  t.equal(clientOf(lines, 'pp-v1'), '203.0.113.9', 'v1: the access line names the client');

  const v2 = await exchange(endOf, port, [
    v2Header(Command.PROXY, '2001:db8:0:0:0:0:0:7'),
    get(gw.key, 'pp-v2'),
  ]);
  t.strictSame(statuses(v2), ['200'], 'v2: served');
  t.equal(clientOf(lines, 'pp-v2'), '2001:db8::7', 'v2: the access line names the client');

  const local = await exchange(endOf, port, [
    v2Header(Command.LOCAL, '2001:db8:0:0:0:0:0:8'),
    get(gw.key, 'pp-local'),
  ]);
  t.strictSame(statuses(local), ['200'], 'v2 LOCAL (a health check): served');
  t.equal(clientOf(lines, 'pp-local'), '127.0.0.1', "LOCAL: the connection's own address");

  const split = 'PROXY TCP4 198.51.100.4 127.0.0.1 5555 8080\r\n';
  const kept = await exchange(endOf, port, [
    split.slice(0, 9),
    split.slice(9) + get(gw.key, 'pp-keep-1', false),
    get(gw.key, 'pp-keep-2'),
  ]);
  t.strictSame(statuses(kept), ['200', '200'], 'a header in two pieces, then two requests on one connection');
  t.equal(clientOf(lines, 'pp-keep-1'), '198.51.100.4');
  t.equal(clientOf(lines, 'pp-keep-2'), '198.51.100.4');

  t.equal(await exchange(endOf, port, [get(gw.key, 'pp-none')]), '', 'no header: closed unanswered');
  t.equal(clientOf(lines, 'pp-none'), undefined, 'and nothing served');
  const refused = await exchange(
    endOf,
    port,
    ['PROXY TCP4 203.0.113.9 127.0.0.1 5555 8080\r\n', get(gw.key, 'pp-untrusted')],
    '127.0.0.2',
  );
  t.equal(refused, '', 'a header from a peer outside trusted_proxies: closed unanswered');
  t.ok(
    lines.some((l) => l.msg.includes('outside server.trusted_proxies') && l.peer === '127.0.0.2'),
    'and the refusal is logged with the peer',
  );
});

t.test('the PROXY client is the one the failed-auth limit counts', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.server as Record<string, unknown>).proxy_protocol = true;
    doc.keys = { failed_auth_limit: 2, failed_auth_window: '60s' };
  });
  const port = Number(new URL(gw.url).port);
  const endOf = acceptedSockets(t);
  const from = (client: string, key: string, id: string): Promise<string> =>
    exchange(endOf, port, [`PROXY TCP4 ${client} 127.0.0.1 5555 8080\r\n`, get(key, id)]);
  const wrong = 'sk-' + 'w'.repeat(43);
  const answers: string[] = [];
  for (let i = 0; i < 3; i++) answers.push(...statuses(await from('192.0.2.1', wrong, `fa-a-${i}`)));
  t.strictSame(answers, ['401', '401', '429'], 'one client past its limit');
  t.strictSame(
    statuses(await from('192.0.2.2', wrong, 'fa-b')),
    ['401'],
    'another client, same balancer: its own count',
  );
  t.strictSame(statuses(await from('192.0.2.1', gw.key, 'fa-a-ok')), ['200'], 'and a correct key is served');
});
