/**
 * The parts of the simulator's batches that need no server: lines spread over a batch's time and answered
 * in order (and never after a stop), a line's answer or error, pages of a list, and OpenAI's input file
 * validation.
 */
import t from 'tap';
import { answerLine, type BatchLine, type LineAnswerer } from '../../simulator/batch-runs/line';
import { pageOf } from '../../simulator/batch-runs/page';
import { BatchRun } from '../../simulator/batch-runs/run';
import { readInput } from '../../simulator/batches/input';
import { PromptCache } from '../../simulator/prompt-cache';
import { SimError } from '../../simulator/sim-error';

const lines = (n: number): BatchLine[] =>
  Array.from({ length: n }, (_, i) => ({ customId: `c${i}`, body: { i } }));

/** Answers each line with its own body, and counts the calls; `#fail` bodies answer a 503. */
function answerer(): LineAnswerer & { readonly calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    familyName: 'test',
    promptCache: new PromptCache(),
    answer: (call) => {
      calls.push(call.body);
      if (JSON.stringify(call.body).includes('#fail')) throw new SimError(503);
      return { echoed: call.body, simId: call.simId, headers: call.headers };
    },
    errorBody: (err, simId) => ({ status: err.status, simId }),
  };
}

void t.test('lines fall due evenly over the window, and are answered once, in order', (t) => {
  const by = answerer();
  const run = new BatchRun(lines(4), by, 1000, 9000);
  t.strictSame(
    [999, 1000, 2999, 3000, 5000, 8999, 9000, 20_000].map((at) => run.due(at)),
    [0, 0, 0, 1, 2, 3, 4, 4],
  );
  run.catchUp(5000);
  run.catchUp(4000);
  t.strictSame(
    run.results.map((r) => r.customId),
    ['c0', 'c1'],
  );
  t.equal(by.calls.length, 2, 'a line is answered once, however often the batch is looked at');
  t.strictSame(new BatchRun(lines(3), by, 500, 500).due(500), 3, 'a window of no time: all due at once');
  t.end();
});

void t.test('a stop answers what is due by then, and nothing after', (t) => {
  const by = answerer();
  const run = new BatchRun(lines(4), by, 0, 4000);
  run.stop(2500);
  run.catchUp(100_000);
  t.strictSame(
    run.results.map((r) => r.customId),
    ['c0', 'c1'],
  );
  t.end();
});

void t.test('a line: the answer, or the error body; no headers of its own; no streams', (t) => {
  const by = answerer();
  const ok = answerLine({ customId: 'a', body: { x: 1 } }, by);
  t.match(ok, { customId: 'a', status: 200, simId: /^req_/, body: { echoed: { x: 1 }, headers: {} } });
  t.equal((ok.body as { simId: string }).simId, ok.simId, 'the call is known by the line’s id');
  t.match(answerLine({ customId: 'b', body: { p: '#fail' } }, by), { status: 503, body: { status: 503 } });
  t.match(answerLine({ customId: 'c', body: { stream: true } }, by), { status: 400 });
  t.equal(by.calls.length, 2, 'a stream never reaches the answer');
  t.end();
});

void t.test('pageOf', (t) => {
  const items = ['e', 'd', 'c', 'b', 'a'].map((id) => ({ id }));
  const ids = (cursor: Parameters<typeof pageOf>[1]) => {
    const page = pageOf(items, cursor);
    return [page.data.map((i) => i.id).join(''), page.hasMore];
  };
  t.strictSame(ids({ limit: 2 }), ['ed', true]);
  t.strictSame(ids({ limit: 2, afterId: 'd' }), ['cb', true]);
  t.strictSame(ids({ limit: 2, afterId: 'b' }), ['a', false]);
  t.strictSame(ids({ limit: 2, beforeId: 'b' }), ['dc', true]);
  t.strictSame(ids({ limit: 5, beforeId: 'b' }), ['edc', false]);
  t.strictSame(ids({ limit: 2, afterId: 'zz' }), ['', false], 'an unknown cursor: an empty page');
  t.strictSame(ids({ limit: 2, beforeId: 'zz' }), ['', false]);
  t.end();
});

const ENDPOINT = '/v1/chat/completions';
const row = (custom_id: unknown, body: unknown, extra: object = {}): string =>
  JSON.stringify({ custom_id, method: 'POST', url: ENDPOINT, body, ...extra });
const chat = (model = 'm'): object => ({ model, messages: [{ role: 'user', content: 'hi' }] });

void t.test('readInput: the lines and their model, or every error with its line', (t) => {
  const good = readInput(Buffer.from(`${row('a', chat())}\n\n${row('b', { messages: [] })}\n`), ENDPOINT);
  t.strictSame(good, {
    ok: true,
    lines: [
      { customId: 'a', body: chat() },
      { customId: 'b', body: { messages: [] } },
    ],
    model: 'm',
  });
  const cases: [string, object[]][] = [
    [`${row('a', chat())}\n[1]`, [{ code: 'invalid_json_line', line: 2 }]],
    [row('', chat()), [{ code: 'invalid_value', param: 'custom_id', line: 1 }]],
    [row('a', chat(), { method: 'GET' }), [{ code: 'invalid_value', param: 'method' }]],
    [row('a', 'text'), [{ code: 'invalid_value', param: 'body' }]],
    [
      JSON.stringify({ custom_id: 'a', method: 'POST', body: chat() }),
      [{ code: 'missing_required_parameter', param: 'url' }],
    ],
    [
      `${row('a', chat('x'))}\n\n${row('a', chat('y'))}`,
      [
        { code: 'duplicate_custom_id', line: 3 },
        { code: 'mismatched_model', line: 3, param: 'body.model' },
      ],
    ],
    [row('a', chat(), { url: '/v1/embeddings' }), [{ code: 'url_mismatch', line: 1 }]],
    ['', [{ code: 'empty_file', line: null, param: null }]],
  ];
  for (const [text, errors] of cases) {
    const input = readInput(Buffer.from(text), ENDPOINT);
    t.match(input, { ok: false, errors }, text);
    if (!input.ok) t.equal(input.errors.length, errors.length, `${text}: no other error`);
  }
  t.end();
});
