/**
 * The simulator's own Responses API (modela's `/v1/responses`): a Response member for member in the order
 * of OpenAI's recorded answers, the stream's events in the recorded order and numbering, a function call,
 * `max_output_tokens` cutting the answer short, the recorded failure on `error_after`, and the vendor's
 * refusals.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { parseSse } from '../helpers/http';
import { errorShape } from './helpers';

type Json = Record<string, unknown>;

const PATH = '/modela/v1/responses';
const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'kit', 'fixtures', 'responses');
const recordedJson = (file: string): Json => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Json;
const recordedEvents = (file: string): Json[] =>
  readFileSync(join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Json);

const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'Get weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

let sim: RunningSimulator;
t.before(async () => {
  sim = await startSimulator();
});
t.teardown(() => sim.close());

const post = (body: Json): Promise<Response> =>
  fetch(sim.url + PATH, {
    method: 'POST',
    headers: { authorization: 'Bearer sim-modela-key', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'modela-5.5', ...body }),
  });

async function events(body: Json): Promise<Json[]> {
  const res = await post({ ...body, stream: true });
  const evs = parseSse(await res.text());
  for (const ev of evs) t.equal(ev.event, (JSON.parse(ev.data) as Json).type, 'each event named by its type');
  return evs.map((ev) => JSON.parse(ev.data) as Json);
}

t.test('a Response has every member of the recorded one, in its order', async (t) => {
  const res = await post({ input: 'hi #sim tokens=4', instructions: 'Be brief.' });
  t.equal(res.status, 200);
  const body = (await res.json()) as Json;
  const recorded = recordedJson('json-text.json');
  const openAiOnly = new Set(['billing', 'tool_usage']);
  t.strictSame(
    Object.keys(body),
    Object.keys(recorded).filter((key) => !openAiOnly.has(key)),
    'the keys in order (less OpenAI-only billing and tool usage)',
  );
  t.match(body, { object: 'response', status: 'completed', model: 'modela-5.5', instructions: 'Be brief.' });
  t.match(body.id, /^resp_/);
  const [item] = body.output as Json[];
  t.strictSame(Object.keys(item!), Object.keys((recorded.output as Json[])[0]!));
  t.equal(((item!.content as Json[])[0]!.text as string).split(' ').length, 4);
  t.strictSame(
    Object.keys(body.usage as Json),
    Object.keys(recorded.usage as Json),
    'usage as the API writes it',
  );
  // The chat replies' arithmetic: a token per four characters of instructions and input (25 here).
  t.match(body.usage, { input_tokens: 7, output_tokens: 4, total_tokens: 11 });
});

t.test('a stream has the recorded events, numbered from 0', async (t) => {
  const got = await events({ input: 'hi #sim tokens=3' });
  const recorded = recordedEvents('stream-text.jsonl');
  const types = (evs: Json[]) => [...new Set(evs.map((e) => e.type))];
  t.strictSame(types(got), types(recorded), 'the same event types in the same order');
  t.strictSame(
    got.map((e) => e.sequence_number),
    got.map((_, i) => i),
  );
  for (const [i, ev] of got.entries()) {
    const twin = recorded.find((r) => r.type === ev.type)!;
    t.strictSame(
      Object.keys(ev),
      Object.keys(twin),
      `event ${i} (${String(ev.type)}) has the recorded members`,
    );
  }
  t.equal(got.filter((e) => e.type === 'response.output_text.delta').length, 3, 'a delta a token');
  t.match(got.at(-1), {
    type: 'response.completed',
    response: { status: 'completed', usage: { output_tokens: 3 } },
  });
});

t.test('a function call, whole and streamed', async (t) => {
  const tools = [WEATHER];
  const res = await post({
    input: 'Weather in Paris?',
    tools,
    tool_choice: { type: 'function', name: 'get_weather' },
  });
  const body = (await res.json()) as Json;
  const [call] = body.output as Json[];
  t.match(call, {
    type: 'function_call',
    status: 'completed',
    name: 'get_weather',
    call_id: /^call_/,
    arguments: '{"city":"Paris"}',
  });
  t.match(call!.id, /^fc_/);
  t.match((body.tools as Json[])[0], {
    type: 'function',
    name: 'get_weather',
    strict: true,
    output_schema: null,
  });

  const got = await events({ input: 'Weather in Paris?', tools });
  const recorded = recordedEvents('stream-function-call.jsonl');
  const types = (evs: Json[]) => [...new Set(evs.map((e) => e.type))];
  t.strictSame(types(got), types(recorded), 'the recorded event types in order');
  t.match(
    got.find((e) => e.type === 'response.function_call_arguments.done'),
    { arguments: '{"city":"Paris"}' },
  );

  const answered = await post({
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      call,
      { type: 'function_call_output', call_id: call!.call_id, output: '{"c":18}' },
    ],
    tools,
  });
  const words = ((await answered.json()) as Json).output as Json[];
  t.equal(words[0]!.type, 'message', 'given the call’s output, the model answers in words');
});

t.test('max_output_tokens cuts the answer short: an incomplete Response', async (t) => {
  const body = (await (await post({ input: 'hi #sim tokens=40', max_output_tokens: 16 })).json()) as Json;
  t.match(body, {
    status: 'incomplete',
    incomplete_details: { reason: 'max_output_tokens' },
    usage: { output_tokens: 16 },
  });
  const got = await events({ input: 'hi #sim tokens=40', max_output_tokens: 16 });
  t.equal(got.at(-1)?.type, 'response.incomplete');
});

t.test('error_after: the error event as the live API nests it, then response.failed', async (t) => {
  const got = await events({ input: 'hi #sim tokens=5 error_after=2' });
  const recorded = recordedEvents('stream-error.jsonl');
  const [error, failed] = got.slice(-2);
  t.strictSame(Object.keys(error!), Object.keys(recorded[2]!), 'the recorded error event’s members');
  t.strictSame(Object.keys(error!.error as Json), Object.keys(recorded[2]!.error as Json));
  t.match(error, { type: 'error', error: { type: 'server_error' } });
  t.match(failed, {
    type: 'response.failed',
    response: { status: 'failed', error: { code: 'server_error' } },
  });
});

t.test('what the vendor refuses', async (t) => {
  const small = await post({ input: 'hi', max_output_tokens: 15 });
  t.equal(small.status, 400, 'max_output_tokens under 16');
  t.match(await small.json(), errorShape('modela', 400));
  t.equal((await post({})).status, 400, 'no input');
  t.equal((await post({ input: [] })).status, 400, 'an empty input');
});
