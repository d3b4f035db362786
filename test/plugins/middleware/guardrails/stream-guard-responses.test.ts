/**
 * The stream guard on Responses streams: text and function call argument deltas are read per part and
 * item; the done events, which repeat the whole text, say what the client was released (no masked text
 * leaks through them); a block closes the open part and item and ends with `response.incomplete`
 * (`content_filter`, the output so far, usage); sequence numbers only rise.
 */
import t from 'tap';
import {
  drive,
  hasLoneSurrogate,
  json,
  literal,
  responsesDoneTexts,
  responsesStream,
  responsesText,
  rising,
  rule,
  sequenceNumbers,
} from './stream-guard-helpers';

const secret = rule('no-secret', 'block', literal('secret'));

t.test('clean text goes on as the same events', (t) => {
  const run = drive('responses', [secret], responsesStream(['Hello', ' world', '.']));
  t.ok(
    run.steps.every((s) => s.kept),
    'every event is the upstream own object',
  );
  t.same(run.flushed, []);
  t.end();
});

t.test('a possible match waits one event', (t) => {
  const run = drive('responses', [secret], responsesStream(['Hello ', 'sec', 'tion two']));
  t.same(run.steps[5]!.out, [], '"sec" held: its delta waits');
  t.same(run.steps[6]!.out, [run.steps[5]!.given, run.steps[6]!.given], 'then goes as it came');
  t.equal(responsesText(run.steps[6]!.out), 'section two');
  t.ok(
    run.steps.slice(7).every((s) => s.kept),
    'the done events are the upstream own: their text is what was released',
  );
  t.ok(rising(sequenceNumbers(run.client)));
  t.end();
});

t.test('a word split across three deltas is blocked with none of it released', (t) => {
  const run = drive('responses', [secret], responsesStream(['The ', 'sec', 'r', 'et plan', ' follows']));
  t.equal(responsesText(run.client), 'The ');
  t.same(run.acted, ['no-secret:block']);
  const final = run.final!.map((ev) => json(ev));
  t.same(
    final.map((p) => p.type),
    [
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.incomplete',
    ],
  );
  t.same(
    run.final!.map((ev) => ev.event),
    final.map((p) => p.type),
    'each named by its type',
  );
  t.same(responsesDoneTexts(run.final!), ['The ', 'The ', 'The ', 'The ']);
  t.match(final[0], { item_id: 'msg_sim', output_index: 0, content_index: 0 });
  t.match(final[2], { item: { id: 'msg_sim', type: 'message', status: 'incomplete', role: 'assistant' } });
  t.match(final[3], {
    response: {
      id: 'resp_sim',
      model: 'modela-5.5',
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17 },
    },
  });
  t.notOk(run.client.some((ev) => ev.data.includes('sec')));
  t.ok(rising(sequenceNumbers(run.client)), `numbers rise: ${sequenceNumbers(run.client).join(',')}`);
  t.end();
});

t.test('a mask across deltas, and in every done event', (t) => {
  const email = rule('email', 'mask', literal('a@b.io', '[EMAIL]'));
  const run = drive('responses', [email], responsesStream(['mail a', '@b', '.io now']));
  t.equal(responsesText(run.client), 'mail [EMAIL] now');
  t.same(responsesDoneTexts(run.client), Array(4).fill('mail [EMAIL] now'), 'text, part, item, Response');
  t.notOk(
    run.client.some((ev) => ev.data.includes('a@b')),
    'the address nowhere',
  );
  t.same(run.acted, ['email:mask']);
  t.ok(rising(sequenceNumbers(run.client)));
  t.end();
});

t.test('function call arguments, and their done events', (t) => {
  const city = rule('city', 'mask', literal('Paris', '[CITY]'));
  const run = drive('responses', [city], responsesStream(['{"city":"', 'Pa', 'ris"}'], { call: true }));
  t.equal(responsesText(run.client), '{"city":"[CITY]"}');
  t.same(responsesDoneTexts(run.client), Array(3).fill('{"city":"[CITY]"}'), 'arguments, item, Response');
  const blocked = drive(
    'responses',
    [rule('city', 'block', literal('Paris'))],
    responsesStream(['{"city":"Par', 'is"}'], { call: true }),
  );
  t.same(
    blocked.final!.map((ev) => json(ev).type),
    ['response.function_call_arguments.done', 'response.output_item.done', 'response.incomplete'],
  );
  t.same(responsesDoneTexts(blocked.final!), Array(3).fill('{"city":"'));
  t.ok(rising(sequenceNumbers(blocked.client)));
  t.end();
});

t.test('the held rest goes out before the text is done, numbered to fit', (t) => {
  const run = drive('responses', [secret], responsesStream(['It is', ' a se']));
  const done = run.steps.find((s) => s.given.event === 'response.output_text.done')!;
  t.same(done.out, [run.steps[5]!.given, done.given], 'the held delta as it came, then the done event');
  t.same(responsesDoneTexts(run.client), Array(4).fill('It is a se'));
  const numbers = sequenceNumbers(run.client);
  t.ok(rising(numbers), `numbers rise: ${numbers.join(',')}`);
  t.equal(numbers.at(-1), 9, 'nothing added: every event keeps its number');
  // A delta ending in half a pair is written anew, and its held half goes out in an event of the guard's.
  const rest = drive('responses', [secret], responsesStream(['It is a se\ud83d']));
  const done2 = rest.steps.find((s) => s.given.event === 'response.output_text.done')!;
  t.equal(responsesText([done2.out[0]!]), '\ud83d', 'the rest as a delta');
  const restNumbers = sequenceNumbers(rest.client);
  t.ok(rising(restNumbers), `numbers rise: ${restNumbers.join(',')}`);
  t.equal(new Set(restNumbers).size, restNumbers.length, 'none twice');
  t.equal(restNumbers.at(-1), 9, 'the events after the added one go one later');
  const gap = drive('responses', [secret], responsesStream(['It is a ', 'se']));
  const gapNumbers = sequenceNumbers(gap.client);
  t.ok(rising(gapNumbers), `numbers rise: ${gapNumbers.join(',')}`);
  t.equal(gapNumbers.at(-1), 9, "the held delta's number is free: nothing after it moves");
  t.ok(gap.steps.slice(-3).every((s) => s.kept));
  t.end();
});

t.test("the upstream's end releases what was held", (t) => {
  const cut = drive('responses', [secret], responsesStream(['It is a se'], { end: false }));
  t.same(cut.flushed, [cut.steps.at(-1)!.given], 'the held delta, as it came');
  t.ok(rising(sequenceNumbers(cut.client)));
  const rules = [
    rule('greedy', 'block', literal('secret', '[X]', true)),
    rule('long', 'log', literal('x secretive')),
  ];
  const blocked = drive('responses', rules, responsesStream(['x secret'], { end: false }));
  t.same(blocked.flushed, [], 'a block at the end returns nothing');
  t.equal(responsesText(blocked.final!), 'x ', 'the text before it leads the final events');
  t.same(responsesDoneTexts(blocked.final!), Array(4).fill('x '));
  t.equal(json(blocked.final!.at(-1)!).type, 'response.incomplete');
  t.ok(rising(sequenceNumbers(blocked.client)));
  t.end();
});

t.test('emoji split into surrogate halves', (t) => {
  const run = drive(
    'responses',
    [rule('x', 'block', literal('😀x'))],
    responsesStream(['hi \ud83d', '\ude00y']),
  );
  t.equal(responsesText(run.client), 'hi 😀y');
  t.notOk(run.client.some((ev) => hasLoneSurrogate(responsesText([ev]))));
  const blocked = drive(
    'responses',
    [rule('x', 'block', literal('😀x'))],
    responsesStream(['hi \ud83d', '\ude00x']),
  );
  t.equal(responsesText(blocked.client), 'hi ');
  t.same(responsesDoneTexts(blocked.final!), Array(4).fill('hi '));
  t.end();
});

t.test('a log rule changes nothing, and is told', (t) => {
  const run = drive('responses', [rule('seen', 'log', literal('plan'))], responsesStream(['the ', 'plan']));
  t.ok(run.steps.every((s) => s.kept));
  t.same(run.acted, ['seen:log']);
  t.end();
});
