/**
 * modela's Batch API with the official `openai` SDK: each line answered exactly as the same single call
 * (body and usage) on chat, embeddings and Responses, failed lines in the error file, an input the vendor
 * refuses failing the batch, the front door's refusals, the list and its pages, and faults.
 */
import t from 'tap';
import type OpenAI from 'openai';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import {
  chatBody,
  fileLines,
  inputFile,
  openAiClient,
  rejection,
  setDuration,
  singleCall,
  startBatch,
  untilStatus,
  upload,
  type Json,
} from './batch-client';

let sim: RunningSimulator;
let client: OpenAI;
t.before(async () => {
  sim = await startSimulator();
  client = openAiClient(sim);
});
t.teardown(() => sim.close());

/** An endpoint a batch may name: a line's body for a prompt, and what of its answer is deterministic. */
interface Endpoint {
  readonly endpoint: '/v1/chat/completions' | '/v1/embeddings' | '/v1/responses';
  readonly body: (text: string) => Json;
  readonly same: (answer: Json) => unknown;
}

const ENDPOINTS: readonly Endpoint[] = [
  { endpoint: '/v1/chat/completions', body: (text) => chatBody(text), same: (a) => a.choices },
  {
    endpoint: '/v1/embeddings',
    body: (text) => ({ model: 'modela-embedding-3-small', input: text, dimensions: 8 }),
    same: (a) => a.data,
  },
  {
    endpoint: '/v1/responses',
    body: (text) => ({ model: 'modela-5.5', input: text }),
    same: (a) => (a.output as Json[]).map((item) => item.content),
  },
];

const PROMPTS = ['hi #sim tokens=2', 'hello there #sim tokens=5', 'a prompt of some forty characters, or so'];

/** A usage in either spelling, as three numbers. */
const counts = (usage: Json): [number, number, number] => [
  Number(usage.prompt_tokens ?? usage.input_tokens),
  Number(usage.completion_tokens ?? usage.output_tokens ?? 0),
  Number(usage.total_tokens),
];

void t.test('each line is answered as the same single call, on every endpoint', async (t) => {
  for (const { endpoint, body, same } of ENDPOINTS) {
    await t.test(endpoint, async (t) => {
      const created = await startBatch(client, endpoint, PROMPTS.map(body));
      t.match(created, { object: 'batch', endpoint, status: 'validating', output_file_id: null });
      const batch = await untilStatus(client, created.id, 'completed');
      t.strictSame(batch.request_counts, { total: 3, completed: 3, failed: 0 });
      t.equal(batch.error_file_id, null, 'no line failed');
      const lines = await fileLines(client, batch.output_file_id!);
      t.strictSame(
        lines.map((l) => l.custom_id),
        ['c1', 'c2', 'c3'],
        'one answer per custom_id',
      );
      const summed = [0, 0, 0];
      for (const [i, line] of lines.entries()) {
        t.match(line, {
          id: /^batch_req_/,
          response: { status_code: 200, request_id: /^req_/ },
          error: null,
        });
        const alone = await singleCall(sim, endpoint, body(PROMPTS[i]!));
        t.strictSame(line.response.body.usage, alone.usage, `${line.custom_id}: the single call's usage`);
        t.strictSame(same(line.response.body), same(alone), `${line.custom_id}: the single call's answer`);
        counts(alone.usage as Json).forEach((n, k) => (summed[k]! += n));
      }
      const { usage } = batch;
      t.strictSame(
        [usage?.input_tokens, usage?.output_tokens, usage?.total_tokens],
        summed,
        'usage sums the lines',
      );
    });
  }
});

void t.test('a completed batch: its times, its output file, as the SDK reads them', async (t) => {
  const batch = await untilStatus(
    client,
    (await startBatch(client, '/v1/chat/completions', [chatBody('hi')])).id,
    'completed',
  );
  t.ok(batch.created_at <= batch.in_progress_at! && batch.in_progress_at! <= batch.finalizing_at!);
  t.ok(batch.finalizing_at! <= batch.completed_at!);
  t.match(batch, {
    failed_at: null,
    cancelling_at: null,
    cancelled_at: null,
    expired_at: null,
    model: 'modela-5.5',
  });
  t.equal(batch.expires_at, batch.created_at + 86_400, 'a 24 h window');
  const file = await client.files.retrieve(batch.output_file_id!);
  t.match(file, { object: 'file', purpose: 'batch_output', filename: `${batch.id}_output.jsonl` });
  const content = await client.files.content(batch.output_file_id!);
  t.equal(
    content.headers.get('content-type'),
    'application/octet-stream',
    'as the vendor sends file content',
  );
  t.equal(file.bytes, (await content.arrayBuffer()).byteLength);
});

void t.test('lines that fail go to the error file, with the single call’s error', async (t) => {
  await setDuration(sim, { duration_ms: 0 });
  t.teardown(() => setDuration(sim, { duration_ms: 1000 }));
  const bodies = [
    chatBody('fine'),
    chatBody('busy #sim status=429'),
    { model: 'modela-5.5' },
    { ...chatBody('streamed'), stream: true },
  ];
  const batch = await client.batches.retrieve((await startBatch(client, '/v1/chat/completions', bodies)).id);
  t.equal(batch.status, 'completed', 'a batch of no duration is done at once');
  t.strictSame(batch.request_counts, { total: 4, completed: 1, failed: 3 });
  t.strictSame(
    (await fileLines(client, batch.output_file_id!)).map((l) => l.custom_id),
    ['c1'],
  );
  const errors = await fileLines(client, batch.error_file_id!);
  t.strictSame(
    errors.map((l) => [l.custom_id, l.response.status_code]),
    [
      ['c2', 429],
      ['c3', 400],
      ['c4', 400],
    ],
  );
  for (const line of errors.slice(0, 2)) {
    const alone = await singleCall(sim, '/v1/chat/completions', bodies[Number(line.custom_id.slice(1)) - 1]);
    t.strictSame(line.response.body, alone, `${line.custom_id}: the single call's error body`);
    t.equal(line.error, null, 'a failed call is a response, not an `error`, as the vendor writes it');
  }
  t.match(
    errors[2]?.response.body,
    { error: { param: 'stream', type: 'invalid_request_error' } },
    'no streams',
  );
  t.match(await client.files.retrieve(batch.error_file_id!), {
    purpose: 'batch_output',
    filename: /_error\.jsonl$/,
  });
});

/** An input file the vendor refuses, and the error it lists. */
interface Refused {
  readonly name: string;
  readonly text: string;
  readonly error: Json;
}

const line = (customId: string, body: unknown, url = '/v1/chat/completions'): string =>
  `${JSON.stringify({ custom_id: customId, method: 'POST', url, body })}\n`;

const REFUSED: readonly Refused[] = [
  {
    name: 'two models',
    text: inputFile('/v1/chat/completions', [chatBody('a'), chatBody('b'), chatBody('c', 'modela-mini')]),
    error: { code: 'mismatched_model', param: 'body.model', line: 3, message: /modela-mini/ },
  },
  {
    name: 'a line that is not JSON',
    text: `${line('a', chatBody('a'))}{not json\n`,
    error: { code: 'invalid_json_line', line: 2, message: 'This line is not parseable as valid JSON.' },
  },
  {
    name: 'a custom_id twice',
    text: line('a', chatBody('a')) + line('a', chatBody('b')),
    error: { code: 'duplicate_custom_id', param: 'custom_id', line: 2 },
  },
  {
    name: 'another endpoint',
    text: line('a', chatBody('a')) + line('b', chatBody('b'), '/v1/responses'),
    error: { code: 'url_mismatch', param: 'url', line: 2 },
  },
  {
    name: 'no method',
    text: `${JSON.stringify({ custom_id: 'a', url: '/v1/chat/completions', body: chatBody('a') })}\n`,
    error: { code: 'missing_required_parameter', param: 'method', line: 1 },
  },
  { name: 'an empty file', text: '\n', error: { code: 'empty_file', line: null } },
];

void t.test('an input the vendor refuses fails the batch when validation ends', async (t) => {
  await setDuration(sim, { duration_ms: 0 });
  t.teardown(() => setDuration(sim, { duration_ms: 1000 }));
  for (const { name, text, error } of REFUSED) {
    const file = await upload(client, text);
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const batch = await client.batches.retrieve(created.id);
    t.match(
      batch,
      { status: 'failed', output_file_id: null, error_file_id: null, in_progress_at: null },
      name,
    );
    t.equal(batch.failed_at, batch.created_at, `${name}: failed as validation ended`);
    t.strictSame(batch.request_counts, { total: 0, completed: 0, failed: 0 }, `${name}: no request accepted`);
    t.equal(batch.errors?.object, 'list');
    t.match(batch.errors?.data, [error], name);
    t.notOk('usage' in batch, `${name}: no usage`);
  }
});

void t.test('the front door refuses what the vendor refuses', async (t) => {
  const file = await upload(client, inputFile('/v1/chat/completions', [chatBody('a')]));
  const create = (body: Json) =>
    rejection(client.batches.create(body as unknown as OpenAI.BatchCreateParams));
  const base = { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' };
  const cases: [Json, string][] = [
    [{ ...base, input_file_id: 'file-nope' }, 'input_file_id'],
    [{ ...base, endpoint: '/v1/completions' }, 'endpoint'],
    [{ ...base, completion_window: '1h' }, 'completion_window'],
    [{ ...base, metadata: { k: 7 } }, 'metadata'],
    [{ endpoint: base.endpoint, completion_window: '24h' }, 'input_file_id'],
  ];
  for (const [body, param] of cases) {
    t.match(await create(body), { status: 400, error: { type: 'invalid_request_error', param } }, param);
  }
  t.match(await rejection(client.batches.retrieve('batch_nope')), {
    status: 404,
    error: { message: "No batch found with id 'batch_nope'.", type: 'invalid_request_error', code: null },
  });
  t.match(await rejection(client.batches.cancel('batch_nope')), { status: 404 });
  const wrongKey = openAiClient(sim).withOptions({ apiKey: 'nope' });
  t.match(await rejection(wrongKey.batches.list()), { status: 401, error: { code: 'invalid_api_key' } });
});

void t.test('the list: newest first, a page at a time', async (t) => {
  const own = await startSimulator();
  t.teardown(() => own.close());
  const ownClient = openAiClient(own);
  const ids: string[] = [];
  for (const text of ['a', 'b', 'c'])
    ids.push((await startBatch(ownClient, '/v1/chat/completions', [chatBody(text)])).id);
  const newest = [...ids].reverse();
  const res = await fetch(`${own.url}/modela/v1/batches?limit=2`, {
    headers: { authorization: 'Bearer sim-modela-key' },
  });
  const page = (await res.json()) as Json;
  t.strictSame(Object.keys(page), ['object', 'data', 'first_id', 'last_id', 'has_more']);
  t.match(page, { object: 'list', first_id: newest[0], last_id: newest[1], has_more: true });
  t.strictSame(
    (page.data as Json[]).map((b) => b.id),
    newest.slice(0, 2),
  );
  const all: string[] = [];
  for await (const batch of ownClient.batches.list({ limit: 2 })) all.push(batch.id);
  t.strictSame(all, newest, 'the SDK pages on with `after`');
  t.match(await rejection(ownClient.batches.list({ limit: 101 })), {
    status: 400,
    error: { param: 'limit' },
  });
});

void t.test('the simulator’s faults apply to the batch routes', async (t) => {
  sim.faults.add({ match: { path_prefix: '/modela/v1/batches' }, fault: { status: 503 }, times: 1 });
  t.teardown(() => void sim.faults.clear());
  t.match(await rejection(client.batches.list()), { status: 503 });
  t.ok(await client.batches.list(), 'spent after one');
});

void t.test('an output line is the vendor’s shape, member for member', async (t) => {
  await setDuration(sim, { duration_ms: 0 });
  t.teardown(() => setDuration(sim, { duration_ms: 1000 }));
  const batch = await client.batches.retrieve(
    (await startBatch(client, '/v1/chat/completions', [chatBody('hi')])).id,
  );
  const [first] = await fileLines(client, batch.output_file_id!);
  t.strictSame(Object.keys(first!), ['id', 'custom_id', 'response', 'error']);
  t.strictSame(Object.keys(first!.response), ['status_code', 'request_id', 'body']);
});
