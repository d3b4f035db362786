/**
 * Usage by team over real HTTP: records carry the team a call was made under (a key moved later leaves
 * its past calls with the old team), the admin API lists and sums them by team, a team's spend is what
 * its records cost, and a video task carries its key's team onto the task and its billed record.
 */
import t from 'tap';
import type { List, Page, TaskView, TeamWithActivity, UsageSummaryRow } from '../../../core/admin/wire';
import type { UsageRecord } from '../../../core/stores/usage-store';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { PROTOCOLS, submitVideo, videoBody } from '../../plugins/video-helpers';

const PRICED = 'modela-5.5';

const admin = async <T>(gw: TestGateway, path: string, method = 'GET', body?: unknown): Promise<T> => {
  const res = await fetch(`${gw.gateway.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.gateway.adminToken}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

const sum = (records: readonly UsageRecord[]): number =>
  records.reduce((s, r) => s + (r.cost_micros ?? 0), 0);

t.test('records, listings and summaries by team', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.prices as Record<string, unknown>)[PRICED] = { input_per_mtok: 1.25, output_per_mtok: 10 };
  });
  const red = await gw.gateway.teams.create({
    name: 'red',
    budget: { amount_micros: 10_000_000, period: 'month' },
  });
  const blue = await gw.gateway.teams.create({ name: 'blue' });
  const a = await gw.createKey({ team_id: red.id });
  const b = await gw.createKey({ team_id: red.id });
  const aId = a.slice(0, 11);
  const calls: [string, string][] = [
    [a, 'first'],
    [b, 'second'],
    [a, 'third'],
    [gw.key, 'teamless'],
  ];
  for (const [key, word] of calls) {
    const res = await postJson(
      `${gw.url}/v1/chat/completions`,
      {
        model: PRICED,
        messages: [{ role: 'user', content: `say ${word}` }],
      },
      key,
    );
    t.equal(res.status, 200, `${word} call answered`);
  }
  // Moved: its later calls are blue's, its earlier ones stay red's.
  await admin(gw, `/admin/keys/${aId}`, 'PATCH', { team_id: blue.id });
  await eventually(async () => {
    const res = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: PRICED, messages: [{ role: 'user', content: 'moved' }] },
      a,
    );
    return res.status === 200;
  });

  let all: UsageRecord[] = [];
  await eventually(
    async () => (all = (await admin<{ data: UsageRecord[] }>(gw, '/admin/usage')).data).length >= 5,
  );
  const redRecords = (await admin<{ data: UsageRecord[] }>(gw, `/admin/usage?team_id=${red.id}`)).data;
  t.equal(redRecords.length, 3, "red's three calls");
  t.ok(
    redRecords.every((r) => r.team_id === red.id),
    'each record carries the team',
  );
  const blueRecords = (await admin<{ data: UsageRecord[] }>(gw, `/admin/usage?team_id=${blue.id}`)).data;
  t.equal(blueRecords.length, 1, "the moved key's later call is blue's");
  t.equal(blueRecords[0]?.key_id, aId);
  const teamless = all.filter((r) => r.team_id === undefined);
  t.equal(teamless.length, 1, 'a record of a key without a team has no team_id');
  t.notOk(
    teamless.some((r) => 'team_id' in r),
    'not even as null',
  );

  const byTeam = await admin<List<UsageSummaryRow>>(gw, '/admin/usage/summary?group_by=team');
  t.strictSame(
    byTeam.data.map((row) => [row.team_id, row.requests, row.cost_micros]),
    [
      [null, 1, sum(teamless)],
      ...[blue, red]
        .sort((x, y) => (x.id < y.id ? -1 : 1))
        .map((team) => [team.id, team === red ? 3 : 1, sum(team === red ? redRecords : blueRecords)]),
    ],
    'one row per team, keys without a team as null first, then by team id',
  );
  const redByKey = await admin<List<UsageSummaryRow>>(
    gw,
    `/admin/usage/summary?group_by=team,key&team_id=${red.id}`,
  );
  t.strictSame(
    redByKey.data.map((row) => [row.team_id, row.key_id, row.requests]).sort(),
    [
      [red.id, aId, 2],
      [red.id, b.slice(0, 11), 1],
    ].sort(),
    "team_id filters: red's calls by key",
  );
  const both = await admin<List<UsageSummaryRow>>(
    gw,
    `/admin/usage/summary?group_by=model&team_id=${red.id},${blue.id}`,
  );
  t.equal(both.data[0]?.requests, 4, 'several teams, comma-separated');

  const teams = await admin<List<TeamWithActivity>>(gw, '/admin/teams');
  const shown = new Map(teams.data.map((team) => [team.id, team]));
  t.ok(sum(redRecords) > 0, 'the calls have a price');
  t.equal(shown.get(red.id)?.spent_micros, sum(redRecords), "red's spend this month is its records' cost");
  t.equal(shown.get(blue.id)?.spent_micros, sum(blueRecords), "blue's over its life");
  t.equal(shown.get(red.id)?.key_count, 1, 'one key left in red');
  t.equal(shown.get(blue.id)?.key_count, 1);
});

t.test("a video task carries its key's team onto the task and its billed record", async (t) => {
  const gw = await startTestGateway(t);
  const team = await gw.gateway.teams.create({ name: 'studio' });
  const key = await gw.createKey({ team_id: team.id });
  const res = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=100'), {}, key);
  t.equal(res.status, 200, 'submitted');
  const id = PROTOCOLS.generic.taskId(res.body);
  await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=100'), {}, gw.key);

  const listed = await admin<Page<TaskView>>(gw, `/admin/tasks?team_id=${team.id}`);
  t.strictSame(
    listed.data.map((task) => task.id),
    [id],
    "?team_id= lists the team's tasks only",
  );
  t.equal(listed.data[0]?.team_id, team.id, 'the task shows its team');
  let records: UsageRecord[] = [];
  await eventually(
    async () =>
      (records = (await admin<{ data: UsageRecord[] }>(gw, `/admin/usage?id=${id}`)).data).length === 1,
    10_000,
  );
  t.equal(records[0]?.team_id, team.id, "the billed record is the team's");
});
