import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';

t.test('admin API: token required, keys managed, usage readable, bad input rejected', async (t) => {
  const gw = await startTestGateway(t);
  const admin = (path: string, init: RequestInit = {}, token = gw.gateway.adminToken) =>
    fetch(`${gw.gateway.adminUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });

  t.equal((await admin('/admin/keys', {}, 'wrong-token')).status, 401, 'a wrong admin token is refused');
  t.equal((await fetch(`${gw.gateway.adminUrl}/admin/keys`)).status, 401, 'no token is refused');
  t.notOk(gw.url.endsWith(new URL(gw.gateway.adminUrl).port), 'the admin API has its own listener');

  const created = await admin('/admin/keys', {
    method: 'POST',
    body: JSON.stringify({ description: 'ops', allowed_models: ['modela-5.5'] }),
  });
  t.equal(created.status, 201);
  const { key, record } = (await created.json()) as { key: string; record: { id: string } };
  t.match(key, /^sk-[A-Za-z0-9_-]{43}$/);
  t.equal(record.id, key.slice(0, 11), 'the id is the visible prefix');
  t.notOk('hash' in record, 'the answer carries no hash');

  const listed = (await (await admin('/admin/keys')).json()) as {
    data: { id: string }[];
    next_cursor: string | null;
  };
  t.ok(listed.data.some((k) => k.id === record.id));
  t.equal(listed.next_cursor, null, 'a paged answer: two keys fit on the first page');
  t.notMatch(JSON.stringify(listed), key, 'the full key is never listed');

  const badJson = await admin('/admin/keys', { method: 'POST', body: '{nope' });
  t.equal(badJson.status, 400);
  t.equal(((await badJson.json()) as { error: { code: string } }).error.code, 'invalid_json');
  const badField = await admin('/admin/keys', {
    method: 'POST',
    body: JSON.stringify({ rate_limit_rpm: -1 }),
  });
  t.equal(badField.status, 400);
  t.equal((await admin('/admin/keys/sk-missing00/disable', { method: 'POST' })).status, 404);

  await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-request-id': 'admin-usage-1' },
    body: JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const usage = (await (await admin('/admin/usage?id=admin-usage-1')).json()) as {
    data: { key_id: string }[];
  };
  t.equal(usage.data.length, 1);
  t.equal(usage.data[0]?.key_id, record.id);
});
