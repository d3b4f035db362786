import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { getJson } from '../../helpers/http';

interface ModelList {
  object: string;
  data: { id: string; object: string; created: number; owned_by: string }[];
}

/** Every model of the contract's model table. */
const MODELS = [
  'modela-5.6-luna',
  'modela-5.5',
  'modelb-3.5-flash',
  'modelb-3.1-pro-preview',
  'modelc-3.6-max-preview',
  'modelc-3.6-flash',
  'modelc-3.7-plus',
  'modelc-3.6-plus',
  'modelc-3.5-plus',
  'modelc-3.7-max',
  'modeld-sonnet-4-6',
  'modeld-opus-4-8',
  'modeld-sonnet-4-5-20250929',
  'modeld-opus-4-6',
  'modelb-3.1-flash-image-preview',
  'modela-embedding-3-small',
  'modela-embedding-3-large',
  'modelb-embedding-001',
  'modelc-embedding-v4',
  'videoa-1.1-t2v',
  'videoa-1.1-i2v',
  'videoa-1.0-t2v',
  'videoa-1.0-r2v',
  'videob-2-0-260128',
];

t.test('GET /v1/models lists the models this key may use, in the OpenAI list shape', async (t) => {
  const gw = await startTestGateway(t);

  const all = await getJson<ModelList>(`${gw.url}/v1/models`, gw.key);
  t.equal(all.status, 200);
  t.equal(all.body.object, 'list');
  t.strictSame(all.body.data.map((m) => m.id).sort(), [...MODELS].sort());
  for (const m of all.body.data) {
    t.equal(m.object, 'model');
    t.ok(Number.isInteger(m.created) && m.created > 0);
    t.equal(m.owned_by, m.id.split('-')[0]);
  }

  const limitedKey = await gw.createKey({ allowed_models: ['modelc-3.7-max', 'modela-5.5'] });
  const limited = await getJson<ModelList>(`${gw.url}/v1/models`, limitedKey);
  t.strictSame(limited.body.data.map((m) => m.id).sort(), ['modela-5.5', 'modelc-3.7-max']);

  const none = await getJson(`${gw.url}/v1/models`);
  t.equal(none.status, 401);
});
