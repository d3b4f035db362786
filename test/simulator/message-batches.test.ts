/**
 * modeld's Message Batches with the official `@anthropic-ai/sdk`: each request answered exactly as the
 * same Messages call (the Message, or its error), results read per custom_id once the batch ended, a
 * cancel on a clock the test moves, delete, the list and its pages, and the front door's refusals.
 */
import type Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { manualClock } from '../helpers/clock';
import { anthropicClient, MODELD_HEADERS, rejection, setDuration, type Json } from './batch-client';
import { until } from '../helpers/wait';

let sim: RunningSimulator;
let client: Anthropic;
t.before(async () => {
  sim = await startSimulator();
  client = anthropicClient(sim);
});
t.teardown(() => sim.close());

type Params = Anthropic.Messages.MessageCreateParamsNonStreaming;

const ask = (text: string, extra: Partial<Params> = {}): Params => ({
  model: 'modeld-test',
  max_tokens: 100,
  messages: [{ role: 'user', content: text }],
  ...extra,
});

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Polls the batch until its processing has ended (the wait's deadline). */
const untilEnded = (c: Anthropic, id: string): Promise<Anthropic.Messages.MessageBatch> =>
  until(
    () => c.messages.batches.retrieve(id),
    (b) => b.processing_status === 'ended',
    { what: `message batch ${id} ended` },
  );

/** The results, by custom_id, as the SDK iterates them. */
async function resultsOf(
  c: Anthropic,
  id: string,
): Promise<Map<string, Anthropic.Messages.MessageBatchResult>> {
  const results = new Map<string, Anthropic.Messages.MessageBatchResult>();
  for await (const line of await c.messages.batches.results(id)) results.set(line.custom_id, line.result);
  return results;
}

/**
 * An answer as JSON without the member each call has fresh (`key`), nor a tool call's id (fresh each time,
 * as the vendor's are).
 */
const comparable = (answer: object, key: string): string =>
  JSON.stringify({ ...answer, [key]: null }).replace(/toolu_\w+/g, 'toolu');

/** GETs a path of the family with its headers, as a client other than the SDK would. */
const get = (path: string): Promise<Response> =>
  fetch(`${sim.url}/modeld/v1/messages/batches${path}`, { headers: MODELD_HEADERS });

void t.test('each request is answered as the same Messages call', async (t) => {
  const requests = [
    { custom_id: 'short', params: ask('hi #sim tokens=3') },
    {
      custom_id: 'thinks',
      params: ask('think #sim tokens=4', {
        thinking: { type: 'enabled', budget_tokens: 1024 },
        max_tokens: 2048,
      }),
    },
    {
      custom_id: 'tool',
      params: ask('weather?', { tools: [{ name: 'get_weather', input_schema: { type: 'object' } }] }),
    },
    {
      custom_id: 'no-max',
      params: { model: 'modeld-test', messages: [{ role: 'user', content: 'hi' }] } as unknown as Params,
    },
    { custom_id: 'busy', params: ask('hi #sim status=529') },
  ];
  const created = await client.messages.batches.create({ requests });
  t.strictSame(Object.keys(created), [
    'id',
    'type',
    'processing_status',
    'request_counts',
    'ended_at',
    'created_at',
    'expires_at',
    'archived_at',
    'cancel_initiated_at',
    'results_url',
  ]);
  t.match(created, {
    id: /^msgbatch_/,
    type: 'message_batch',
    processing_status: 'in_progress',
    request_counts: { processing: 5, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    ended_at: null,
    created_at: RFC3339,
    archived_at: null,
    cancel_initiated_at: null,
    results_url: null,
  });
  const ended = await untilEnded(client, created.id);
  t.match(ended, {
    request_counts: { processing: 0, succeeded: 3, errored: 2, canceled: 0, expired: 0 },
    ended_at: RFC3339,
    results_url: `${sim.url}/modeld/v1/messages/batches/${created.id}/results`,
  });
  const results = await resultsOf(client, created.id);
  t.strictSame(
    [...results.keys()],
    requests.map((r) => r.custom_id),
    'one result per custom_id',
  );
  for (const { custom_id: id, params } of requests) {
    const got = results.get(id)!;
    const alone = await client.messages.create(params).then(
      (message) => ({ type: 'succeeded', message }),
      (e: InstanceType<typeof Anthropic.APIError>) => ({ type: 'errored', error: e.error }),
    );
    t.equal(got.type, alone.type, `${id}: ${alone.type}`);
    if (got.type === 'succeeded' && 'message' in alone) {
      t.match(got.message.id, /^msg_/);
      t.equal(
        comparable(got.message, 'id'),
        comparable(alone.message, 'id'),
        `${id}: the single call's Message, usage included`,
      );
    }
    if (got.type === 'errored' && 'error' in alone) {
      t.equal(
        comparable(got.error, 'request_id'),
        comparable(alone.error as object, 'request_id'),
        `${id}: the single call's error body`,
      );
      t.match(got.error, { type: 'error', request_id: /^req_/ });
    }
  }
});

void t.test('the results file as the vendor serves it; none before the batch ended', async (t) => {
  const clock = manualClock();
  const timed = await startSimulator({ clock: clock.read });
  t.teardown(() => timed.close());
  const timedClient = anthropicClient(timed);
  await setDuration(timed, { duration_ms: 1000 });
  const created = await timedClient.messages.batches.create({
    requests: [{ custom_id: 'a', params: ask('hi') }],
  });
  const early = await fetch(`${timed.url}/modeld/v1/messages/batches/${created.id}/results`, {
    headers: MODELD_HEADERS,
  });
  t.equal(early.status, 400, 'not before it ended');
  t.match(await early.json(), {
    type: 'error',
    error: { type: 'invalid_request_error', message: /not finished/ },
  });
  await t.rejects(
    timedClient.messages.batches.results(created.id),
    /results_url/,
    'the SDK refuses by itself',
  );
  clock.tick(1000);
  const res = await fetch(`${timed.url}/modeld/v1/messages/batches/${created.id}/results`, {
    headers: MODELD_HEADERS,
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/x-jsonl');
  t.equal(res.headers.get('content-disposition'), `attachment; filename*=utf-8''${created.id}_results.jsonl`);
  t.match(res.headers.get('request-id'), /^req_/);
  const lines = (await res.text()).split('\n');
  t.equal(lines.pop(), '', 'each line ends with a newline');
  t.match(JSON.parse(lines[0]!), {
    custom_id: 'a',
    result: { type: 'succeeded', message: { type: 'message' } },
  });
});

void t.test('a cancel: canceling, then ended with the unrun requests canceled; then delete', async (t) => {
  const clock = manualClock();
  const timed = await startSimulator({ clock: clock.read });
  t.teardown(() => timed.close());
  const timedClient = anthropicClient(timed);
  await setDuration(timed, { duration_ms: 10_000 });
  const requests = ['a', 'b', 'c', 'd'].map((id) => ({ custom_id: id, params: ask(`hi ${id}`) }));
  const created = await timedClient.messages.batches.create({ requests });
  clock.tick(5000); // the requests fall due at 2.5, 5, 7.5 and 10 s
  const canceling = await timedClient.messages.batches.cancel(created.id);
  t.match(canceling, {
    processing_status: 'canceling',
    cancel_initiated_at: new Date(clock.now).toISOString(),
    request_counts: { processing: 4, succeeded: 0 },
    results_url: null,
  });
  t.equal(
    (await timedClient.messages.batches.cancel(created.id)).processing_status,
    'canceling',
    'again: the same',
  );
  t.match(await rejection(timedClient.messages.batches.delete(created.id)), {
    status: 400,
    error: { type: 'error', error: { type: 'invalid_request_error', message: /cancel it first/ } },
  });
  clock.tick(1000);
  const ended = await timedClient.messages.batches.retrieve(created.id);
  t.match(ended, {
    processing_status: 'ended',
    ended_at: new Date(clock.now).toISOString(),
    request_counts: { processing: 0, succeeded: 2, errored: 0, canceled: 2, expired: 0 },
  });
  const results = await resultsOf(timedClient, created.id);
  t.strictSame(
    [...results].map(([id, r]) => [id, r.type]),
    [
      ['a', 'succeeded'],
      ['b', 'succeeded'],
      ['c', 'canceled'],
      ['d', 'canceled'],
    ],
  );
  t.strictSame(results.get('c'), { type: 'canceled' });
  t.match(await rejection(timedClient.messages.batches.cancel(created.id)), {
    status: 400,
    error: { error: { type: 'invalid_request_error' } },
  });
  t.strictSame(await timedClient.messages.batches.delete(created.id), {
    id: created.id,
    type: 'message_batch_deleted',
  });
  t.match(await rejection(timedClient.messages.batches.retrieve(created.id)), {
    status: 404,
    error: { type: 'error', error: { type: 'not_found_error' } },
  });
});

void t.test('the list: newest first, paged with after_id and before_id', async (t) => {
  const own = await startSimulator();
  t.teardown(() => own.close());
  const ownClient = anthropicClient(own);
  const ids: string[] = [];
  for (const id of ['a', 'b', 'c']) {
    ids.push(
      (await ownClient.messages.batches.create({ requests: [{ custom_id: id, params: ask(id) }] })).id,
    );
  }
  const newest = [...ids].reverse();
  const first = await ownClient.messages.batches.list({ limit: 2 });
  t.strictSame(
    first.data.map((b) => b.id),
    newest.slice(0, 2),
  );
  t.match(first, { has_more: true, first_id: newest[0], last_id: newest[1] });
  const all: string[] = [];
  for await (const batch of ownClient.messages.batches.list({ limit: 2 })) all.push(batch.id);
  t.strictSame(all, newest, 'the SDK pages on with after_id');
  const before = await ownClient.messages.batches.list({ before_id: newest[2], limit: 1 });
  t.strictSame(
    before.data.map((b) => b.id),
    [newest[1]],
  );
  t.equal(before.has_more, true, 'a newer one is left');
});

void t.test('the front door refuses what the vendor refuses', async (t) => {
  const create = (body: unknown) =>
    fetch(`${sim.url}/modeld/v1/messages/batches`, {
      method: 'POST',
      headers: { ...MODELD_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const cases: [unknown, RegExp][] = [
    [{}, /^requests: Field required/],
    [{ requests: [] }, /^requests: /],
    [{ requests: [{ params: ask('x') }] }, /^requests\.0\.custom_id: Field required/],
    [{ requests: [{ custom_id: 'has space', params: ask('x') }] }, /^requests\.0\.custom_id: /],
    [{ requests: [{ custom_id: 'a', params: 'x' }] }, /^requests\.0\.params: /],
    [
      {
        requests: [
          { custom_id: 'a', params: ask('x') },
          { custom_id: 'a', params: ask('y') },
        ],
      },
      /Duplicate custom_id 'a'/,
    ],
  ];
  for (const [body, message] of cases) {
    const res = await create(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(await res.json(), { type: 'error', error: { type: 'invalid_request_error', message } });
  }
  const noVersion = await fetch(`${sim.url}/modeld/v1/messages/batches`, {
    headers: { 'x-api-key': 'sim-modeld-key' },
  });
  t.equal(noVersion.status, 400, 'the version header, as on every route of the family');
  const wrongKey = await fetch(`${sim.url}/modeld/v1/messages/batches`, {
    headers: { ...MODELD_HEADERS, 'x-api-key': 'no' },
  });
  t.equal(wrongKey.status, 401);
  t.equal((await get('/msgbatch_nope')).status, 404);
  t.equal((await get('/msgbatch_nope/results')).status, 404);
});

void t.test('a streamed request is errored; `/_sim/batches` lists both vendors', async (t) => {
  const created = await client.messages.batches.create({
    requests: [{ custom_id: 's', params: { ...ask('hi'), stream: true } as unknown as Params }],
  });
  await untilEnded(client, created.id);
  t.match((await resultsOf(client, created.id)).get('s'), {
    type: 'errored',
    error: { type: 'error', error: { type: 'invalid_request_error', message: /Streaming/ } },
  });
  const listed = (await (await fetch(`${sim.url}/_sim/batches?family=modeld`)).json()) as { batches: Json[] };
  t.ok(listed.batches.every((b) => b.family === 'modeld'));
  t.match(listed.batches.at(-1), { id: created.id, status: 'ended', requests: 1, answered: 1 });
});
