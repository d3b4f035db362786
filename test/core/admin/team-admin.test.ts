/**
 * A team_admin over real HTTP: its listing holds only its team's keys (another team_id is 403), a key of
 * another team or of none is 403 to read or change, keys it makes are its team's and stay there, and a
 * task is its key's team's. Its team's keys work as any other.
 */
import t from 'tap';
import { newTask } from '../stores/task-store.contract';
import { startTestGateway } from '../../helpers/gateway';
import { adminCall, makeAdminToken, teamStoreWith, type ErrorBody } from '../../helpers/admin';

interface KeyAnswer {
  key: string;
  record: { id: string; team_id?: string };
}

t.test("a team_admin acts on its own team's keys only", async (t) => {
  const teamStore = await teamStoreWith(t, 'team-a', 'team-b');
  const gw = await startTestGateway(t, undefined, { teamStore });
  const teamAdmin = await makeAdminToken(gw, { role: 'team_admin', team_id: 'team-a' });
  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    adminCall<T>(gw, teamAdmin, method, path, body);
  const ownKey = (await gw.gateway.keys.create({ team_id: 'team-a', description: 'a1' })).record.id;
  const otherKey = (await gw.gateway.keys.create({ team_id: 'team-b', description: 'b1' })).record.id;
  const noTeamKey = (await gw.gateway.keys.create({ description: 'none' })).record.id;

  const listed = await call<{ data: { id: string }[] }>('GET', '/admin/keys');
  t.equal(listed.status, 200);
  t.strictSame(
    listed.body.data.map((k) => k.id),
    [ownKey],
    'its listing holds its team only',
  );
  t.equal((await call('GET', '/admin/keys?team_id=team-a')).status, 200, 'its own team_id is fine');
  const other = await call<ErrorBody>('GET', '/admin/keys?team_id=team-b');
  t.equal(other.status, 403, 'another team_id is refused');
  t.equal(other.body.error.code, 'forbidden');
  t.match(other.body.error.message, /team team-b belongs to another team/);
  const adminListed = await adminCall<{ data: unknown[] }>(gw, gw.gateway.adminToken, 'GET', '/admin/keys');
  t.ok(adminListed.body.data.length >= 3, 'an admin still sees every key');

  for (const id of [otherKey, noTeamKey]) {
    for (const [method, path, body] of [
      ['GET', `/admin/keys/${id}`],
      ['PATCH', `/admin/keys/${id}`, { description: 'taken' }],
      ['POST', `/admin/keys/${id}/disable`],
      ['POST', `/admin/keys/${id}/rotate`, {}],
      ['DELETE', `/admin/keys/${id}`],
    ] as [string, string, unknown?][]) {
      const answer = await call<ErrorBody>(method, path, body);
      t.equal(answer.status, 403, `${method} ${path}: not its team's`);
      t.match(answer.body.error.message, new RegExp(`key ${id} belongs to another team`));
    }
  }
  const untouched = await gw.gateway.keys.findById(otherKey);
  t.match(untouched, { description: 'b1', enabled: true }, "the other team's key is untouched");

  t.equal((await call('GET', `/admin/keys/${ownKey}`)).status, 200, 'its own key it reads');
  t.equal((await call('PATCH', `/admin/keys/${ownKey}`, { description: 'a1+' })).status, 200, 'and changes');
  for (const team_id of ['team-b', null]) {
    const moved = await call<ErrorBody>('PATCH', `/admin/keys/${ownKey}`, { team_id });
    t.equal(moved.status, 403, `it may not move a key to ${String(team_id)}`);
    t.match(moved.body.error.message, /may not move a key/);
  }
  t.equal(
    (await call('PATCH', `/admin/keys/${ownKey}`, { team_id: 'team-a' })).status,
    200,
    'its own team: fine',
  );
  t.equal((await gw.gateway.keys.findById(ownKey))?.team_id, 'team-a', 'still in its team');

  const made = await call<KeyAnswer>('POST', '/admin/keys', { description: 'new' });
  t.equal(made.status, 201);
  t.equal(made.body.record.team_id, 'team-a', 'a key it makes is its team’s');
  t.equal((await call('POST', '/admin/keys', { team_id: 'team-b' })).status, 403, 'never another team’s');
  const rotated = await call<KeyAnswer>('POST', `/admin/keys/${made.body.record.id}/rotate`, {});
  t.equal(rotated.status, 201);
  t.equal(rotated.body.record.team_id, 'team-a', 'a rotation stays in the team');

  const works = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${made.body.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(works.status, 200, 'and its key works');

  // A task belongs to the team its key was in at submit: the record says which.
  const otherTask = newTask({ key_id: otherKey, team_id: 'team-b', status: 'succeeded' });
  const ownTask = newTask({ key_id: ownKey, team_id: 'team-a', status: 'succeeded' });
  const beforeJoining = newTask({ key_id: ownKey, status: 'succeeded' });
  for (const task of [otherTask, ownTask, beforeJoining]) await gw.gateway.tasks.insert(task, 0);
  t.equal((await call('GET', `/admin/tasks/${otherTask.id}`)).status, 403, "another team's task: 403");
  t.equal((await call('GET', `/admin/tasks/${ownTask.id}`)).status, 200, 'its own task it reads');
  t.equal(
    (await call('GET', `/admin/tasks/${beforeJoining.id}`)).status,
    403,
    "a task its key made before joining the team is not the team's",
  );
  t.equal((await call('GET', '/admin/tasks/vt-none')).status, 404, 'an unknown task is 404');

  for (const [method, path] of [
    ['GET', '/admin/tokens'],
    ['POST', '/admin/reload'],
    ['GET', '/admin/config'],
    ['GET', '/admin/audit'],
  ]) {
    t.equal((await call(method!, path!)).status, 403, `${method} ${path}: not a team_admin's`);
  }
});
