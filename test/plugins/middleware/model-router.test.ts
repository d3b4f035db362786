import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { postJson, type ErrorBody } from '../../helpers/http';

const ask = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

t.test('model-router', async (t) => {
  const gw = await startTestGateway(t);
  const url = `${gw.url}/v1/chat/completions`;

  t.test('a model of another endpoint → 404 naming where it is served', async (t) => {
    // Only chat plugins are configured here, so an unknown family has nowhere to point to.
    const res = await postJson<ErrorBody>(url, ask('modeld-opus-4-8'), gw.key);
    t.equal(res.status, 404);
    t.equal(res.body.error.code, 'model_not_found');
    t.match(res.body.error.message, /modeld-opus-4-8/);
  });

  t.test('an unknown model → 404 model_not_found', async (t) => {
    const res = await postJson<ErrorBody>(url, ask('gpt-nothing'), gw.key);
    t.equal(res.status, 404);
    t.equal(res.body.error.code, 'model_not_found');
  });

  t.test('a model the key may not use → 403; the allowed one → 200', async (t) => {
    const key = await gw.createKey({ allowed_models: ['modelc-3.6-flash'] });
    const denied = await postJson<ErrorBody>(url, ask('modela-5.5'), key);
    t.equal(denied.status, 403);
    t.equal(denied.body.error.code, 'model_not_allowed');
    t.equal((await postJson(url, ask('modelc-3.6-flash'), key)).status, 200);
  });

  t.test('routes: weights spread calls and an upstream model id is sent upstream', async (t) => {
    const routed = await startTestGateway(t, (doc, sim) => {
      (doc.upstreams as Record<string, unknown>)['modela-second'] = {
        plugin: 'modela',
        base_url: `${sim.url}/modela/v1`,
        api_key: 'sim-modela-key',
      };
      doc.routes = {
        'modela-5.5': {
          targets: [
            { upstream: 'modela-main', weight: 1 },
            { upstream: 'modela-second', weight: 1, model: 'vendor-model-x' },
          ],
        },
      };
    });
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      await postJson(`${routed.url}/v1/chat/completions`, ask('modela-5.5'), routed.key, {
        'x-request-id': `w-${i}`,
      });
      const [upstream] = routed.sim.log.list(`w-${i}`);
      seen.add(String((upstream?.body as { model: string }).model));
    }
    t.strictSame([...seen].sort(), ['modela-5.5', 'vendor-model-x']);
    const records = await routed.gateway.usage.list();
    t.strictSame([...new Set(records.map((r) => r.upstream))].sort(), ['modela-main', 'modela-second']);
  });
});
