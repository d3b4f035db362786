/**
 * The gateway behind real load balancers, as "Several instances" in the docs sets them up: nginx with
 * `proxy_set_header X-Forwarded-For` (the gateway trusts nginx's address), and HAProxy with
 * `send-proxy-v2` (the gateway reads the PROXY protocol). Clients on two loopback addresses reach the
 * gateway through each: they are limited apart, the access line names each, and a forged
 * `X-Forwarded-For` changes nothing, sent through the balancer or straight to the gateway.
 */
import t, { type Test } from 'tap';
import { request } from 'node:http';
import { startTestGateway, type TestGateway } from '../helpers/gateway';
import { startHaproxy, startNginx } from '../helpers/balancers';
import { recordingLogger, type LogLine } from '../helpers/logs';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** A chat POST from the client address `from`, with any extra headers. */
function chatFrom(
  url: string,
  key: string,
  from: string,
  id: string,
  extra: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, {
      method: 'POST',
      localAddress: from,
      agent: false,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${key}`,
        'x-request-id': id,
        ...extra,
      },
    });
    req.on('error', reject).on('response', (res) => {
      res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.end(JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] }));
  });
}

const WRONG = 'sk-' + 'z'.repeat(43);
const LIMIT = 3;

async function gatewayWith(
  t: Test,
  server: Record<string, unknown>,
): Promise<{ gw: TestGateway; lines: LogLine[] }> {
  const { logger, lines } = recordingLogger('info');
  const gw = await startTestGateway(
    t,
    (doc) => {
      doc.server = { ...(doc.server as object), ...server };
      doc.keys = { failed_auth_limit: LIMIT, failed_auth_window: '60s' };
    },
    { logger },
  );
  return { gw, lines };
}

const clientOf = (lines: readonly LogLine[], id: string): unknown =>
  lines.find((l) => l.msg === 'request' && l.request_id === id)?.client;

/** What both balancers must show: two clients limited apart and named, forged headers ignored. */
async function clientsApart(t: Test, front: string, gw: TestGateway, lines: LogLine[]): Promise<void> {
  const a: number[] = [];
  for (let i = 0; i <= LIMIT; i++) a.push((await chatFrom(front, WRONG, '127.0.0.2', `a-${i}`)).status);
  t.strictSame(a, [401, 401, 401, 429], 'client A: three 401s, then 429');
  t.equal((await chatFrom(front, WRONG, '127.0.0.3', 'b-0')).status, 401, 'client B: its own count, 401');
  t.equal(
    (await chatFrom(front, gw.key, '127.0.0.2', 'a-ok')).status,
    200,
    'client A with a correct key: 200',
  );
  t.equal(clientOf(lines, 'a-0'), '127.0.0.2', 'the access line names client A');
  t.equal(clientOf(lines, 'b-0'), '127.0.0.3', 'and client B');

  const forged = await chatFrom(front, WRONG, '127.0.0.3', 'b-forged', { 'x-forwarded-for': '127.0.0.2' });
  t.equal(forged.status, 401, 'a forged X-Forwarded-For through the balancer: B is not counted as A');
  t.equal(clientOf(lines, 'b-forged'), '127.0.0.3', 'and is logged as B');
}

t.test('behind nginx (X-Forwarded-For from a trusted address)', async (t) => {
  const { gw, lines } = await gatewayWith(t, { trusted_proxies: ['127.0.0.5'] });
  const nginx = await startNginx(t, { gatewayPort: Number(new URL(gw.url).port), from: '127.0.0.5' });
  await clientsApart(t, nginx.url, gw, lines);

  const direct = await chatFrom(gw.url, WRONG, '127.0.0.4', 'direct-forged', {
    'x-forwarded-for': '127.0.0.2',
  });
  t.equal(
    direct.status,
    401,
    'a forged X-Forwarded-For straight to the gateway: not counted as A (A would get 429)',
  );
  t.equal(clientOf(lines, 'direct-forged'), '127.0.0.4', 'and logged as the peer it is');
  t.equal(nginx.log().includes('[emerg]'), false, 'nginx ran without errors');
});

t.test('behind HAProxy (PROXY protocol v2)', async (t) => {
  const { gw, lines } = await gatewayWith(t, { proxy_protocol: true, trusted_proxies: ['127.0.0.6'] });
  const haproxy = await startHaproxy(t, { gatewayPort: Number(new URL(gw.url).port), from: '127.0.0.6' });
  await clientsApart(t, haproxy.url, gw, lines);

  const direct = await chatFrom(gw.url, gw.key, '127.0.0.6', 'direct-no-header').catch((e: Error) => e);
  t.type(
    direct,
    Error,
    'straight to the gateway without a PROXY header: the connection is closed unanswered',
  );
  t.equal(clientOf(lines, 'direct-no-header'), undefined, 'and nothing is served');
});
