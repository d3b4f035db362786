import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { postJson, type ErrorBody } from '../../helpers/http';

const ask = { model: 'modelc-3.6-flash', messages: [{ role: 'user', content: 'hi' }] };

t.test('rate-limit: per-key requests per minute, 429 with an integer Retry-After', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.pipeline as unknown[])[2] = { 'rate-limit': { requests_per_minute: 3, per_key: {} } };
  });
  const url = `${gw.url}/v1/chat/completions`;

  for (let i = 0; i < 3; i++) t.equal((await postJson(url, ask, gw.key)).status, 200, `call ${i + 1} passes`);
  const limited = await postJson<ErrorBody>(url, ask, gw.key);
  t.equal(limited.status, 429);
  t.strictSame(Object.keys(limited.body.error).sort(), ['code', 'message', 'type']);
  t.equal(limited.body.error.code, 'rate_limited');
  t.equal(limited.body.error.type, 'error');
  const retryAfter = limited.headers.get('retry-after');
  t.match(retryAfter, /^\d+$/, 'an integer number of seconds');
  t.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60);

  const other = await gw.createKey();
  t.equal((await postJson(url, ask, other)).status, 200, 'another key has its own budget');

  const generous = await gw.createKey({ rate_limit_rpm: 10 });
  for (let i = 0; i < 10; i++) t.equal((await postJson(url, ask, generous)).status, 200);
  t.equal((await postJson(url, ask, generous)).status, 429, "the key's own limit applies");
});

t.test('rate-limit: per_key overrides from gateway.yaml, by key id', async (t) => {
  let id = '';
  const gw = await startTestGateway(t, (doc) => {
    (doc.pipeline as unknown[])[2] = { 'rate-limit': { requests_per_minute: 100 } };
  });
  id = gw.key.slice(0, 11);
  await gw.gateway.close(100); // a data directory has one owner at a time
  const strict = await startTestGateway(t, (doc) => {
    doc.storage = { driver: 'embedded', data_dir: gw.dataDir }; // same keys, other limits
    (doc.pipeline as unknown[])[2] = { 'rate-limit': { requests_per_minute: 100, per_key: { [id]: 1 } } };
  });
  const url = `${strict.url}/v1/chat/completions`;
  t.equal((await postJson(url, ask, gw.key)).status, 200);
  t.equal((await postJson(url, ask, gw.key)).status, 429);
});

t.test(
  'rate-limit: per_model caps each matching model on its own, the key limit still applies',
  async (t) => {
    const gw = await startTestGateway(t, (doc) => {
      (doc.pipeline as unknown[])[2] = {
        'rate-limit': { backend: 'memory', requests_per_minute: 100, per_model: { 'modelc-*': { rpm: 2 } } },
      };
    });
    const url = `${gw.url}/v1/chat/completions`;
    for (let i = 0; i < 2; i++) t.equal((await postJson(url, ask, gw.key)).status, 200);
    const capped = await postJson<ErrorBody>(url, ask, gw.key);
    t.equal(capped.status, 429, 'the model cap refuses');
    t.equal(capped.body.error.code, 'rate_limited');
    const other = { ...ask, model: 'modela-5.5' };
    t.equal((await postJson(url, other, gw.key)).status, 200, 'another model is not capped');
  },
);

t.test('rate-limit: backend redis without redis.url stops start-up', async (t) => {
  await t.rejects(
    startTestGateway(t, (doc) => {
      (doc.pipeline as unknown[])[2] = { 'rate-limit': { backend: 'redis' } };
    }),
    { name: 'ConfigError', message: /rate-limit\.backend: redis needs redis\.url/ },
  );
});
