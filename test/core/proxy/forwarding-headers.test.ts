/**
 * What an upstream learns of the client's address: nothing by default (the client's own forwarding
 * headers never pass), and with `server.forward_client_address` a fresh `X-Forwarded-For` holding the
 * address the gateway settled on: a forged header from an untrusted peer does not reach it.
 */
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';

const chat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };
const FORWARDING = {
  'x-forwarded-for': '203.0.113.7',
  forwarded: 'for=203.0.113.7',
  'x-real-ip': '203.0.113.7',
  'x-forwarded-host': 'example.com',
  'x-forwarded-proto': 'https',
};

const forwardingSeen = (headers: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name in FORWARDING));

t.test('by default upstreams get no forwarding headers', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.server = { ...(doc.server as object), trusted_proxies: ['127.0.0.1'] };
  });
  const res = await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key, {
    'x-request-id': 'fw-off',
    ...FORWARDING,
  });
  t.equal(res.status, 200);
  t.strictSame(forwardingSeen(gw.sim.log.list('fw-off')[0]!.headers), {}, "none of the client's");
});

t.test('forward_client_address: a fresh X-Forwarded-For with the settled address', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.server = { ...(doc.server as object), trusted_proxies: ['127.0.0.1'], forward_client_address: true };
  });
  await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key, {
    'x-request-id': 'fw-trusted',
    ...FORWARDING,
    'x-forwarded-for': '198.51.100.1, 203.0.113.7',
  });
  t.strictSame(
    forwardingSeen(gw.sim.log.list('fw-trusted')[0]!.headers),
    { 'x-forwarded-for': '203.0.113.7' },
    'from a trusted peer: the client it named, alone',
  );
});

t.test('forward_client_address without trusted proxies: the peer, whatever the client wrote', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.server = { ...(doc.server as object), forward_client_address: true };
  });
  await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key, {
    'x-request-id': 'fw-forged',
    ...FORWARDING,
  });
  t.strictSame(forwardingSeen(gw.sim.log.list('fw-forged')[0]!.headers), { 'x-forwarded-for': '127.0.0.1' });
});
