/**
 * The stream guard on Messages streams: text and tool input deltas are read per content block, the held
 * rest goes out before `content_block_stop`, and a block stops the open block and ends the message with
 * `stop_reason: "refusal"` and the output tokens so far, every event named as Anthropic names it.
 */
import t from 'tap';
import {
  drive,
  hasLoneSurrogate,
  json,
  literal,
  messagesStream,
  messagesText,
  rule,
} from './stream-guard-helpers';

const secret = rule('no-secret', 'block', literal('secret'));

t.test('clean text goes on as the same events', (t) => {
  const run = drive('messages', [secret], messagesStream(['Hello', ' world', '.']));
  t.ok(
    run.steps.every((s) => s.kept),
    'every event, the ping included, is the upstream own object',
  );
  t.same(run.flushed, []);
  t.end();
});

t.test('a possible match waits one event', (t) => {
  const run = drive('messages', [secret], messagesStream(['Hello ', 'sec', 'tion two']));
  t.same(run.steps[4]!.out, [], '"sec" held: its delta dropped');
  t.equal(messagesText(run.steps[5]!.out), 'section two');
  t.equal(run.steps[5]!.out[0]!.event, 'content_block_delta');
  t.equal(messagesText(run.client), 'Hello section two');
  t.end();
});

t.test('a word split across three deltas is blocked with none of it released', (t) => {
  const run = drive('messages', [secret], messagesStream(['The ', 'sec', 'r', 'et plan', ' follows']));
  t.equal(messagesText(run.client), 'The ');
  t.same(run.acted, ['no-secret:block']);
  t.same(
    run.final!.map((ev) => [ev.event, json(ev)]),
    [
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'refusal', stop_sequence: null },
          usage: { output_tokens: 5 },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ],
  );
  t.notOk(run.client.some((ev) => ev.data.includes('sec')));
  t.end();
});

t.test('a mask replaces a match split across deltas', (t) => {
  const email = rule('email', 'mask', literal('a@b.io', '[EMAIL]'));
  const run = drive('messages', [email], messagesStream(['mail a', '@b', '.io now']));
  t.equal(messagesText(run.client), 'mail [EMAIL] now');
  t.same(run.acted, ['email:mask']);
  t.ok(run.steps.at(-1)!.kept, 'message_stop kept');
  t.end();
});

t.test('tool input JSON is read as a run', (t) => {
  const city = rule('city', 'mask', literal('Paris', '[CITY]'));
  const run = drive('messages', [city], messagesStream(['{"city": "P', 'ar', 'is"}'], { tool: true }));
  t.equal(messagesText(run.client), '{"city": "[CITY]"}');
  t.ok(
    run.client
      .filter((ev) => ev.event === 'content_block_delta')
      .every((ev) => json<{ delta: { type: string } }>(ev).delta.type === 'input_json_delta'),
    'written as input_json_delta',
  );
  t.end();
});

t.test('the held rest goes out before content_block_stop, or at the upstream end', (t) => {
  const run = drive('messages', [secret], messagesStream(['It is a se']));
  const delta = run.steps.find((s) => s.given.event === 'content_block_delta')!;
  t.same(delta.out, [], '"se" undecided: its delta waits');
  const stop = run.steps.find((s) => s.given.event === 'content_block_stop')!;
  t.same(stop.out, [delta.given, stop.given], 'the held delta as it came, then the stop');
  t.equal(messagesText(run.client), 'It is a se');
  const cut = drive('messages', [secret], messagesStream(['It is a se'], { stop: false }));
  t.same(cut.flushed, [cut.steps.at(-1)!.given], 'the held delta, as it came');
  const rules = [
    rule('greedy', 'block', literal('secret', '[X]', true)),
    rule('long', 'log', literal('x secretive')),
  ];
  const blocked = drive('messages', rules, messagesStream(['x secret'], { stop: false }));
  t.same(blocked.flushed, [], 'a block at the end returns nothing');
  t.same(
    blocked.final!.map((ev) => ev.event),
    ['content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'],
  );
  t.equal(messagesText(blocked.final!), 'x ', 'the text before it leads the final events');
  t.end();
});

t.test('a block at the end of a block', (t) => {
  const greedy = rule('greedy', 'block', literal('secret', '[X]', true));
  const run = drive('messages', [greedy], messagesStream(['a secret']));
  t.equal(messagesText(run.client), 'a ');
  t.equal(run.final![0]!.event, 'content_block_stop', 'the block is stopped by the guard');
  t.equal(run.client.filter((ev) => ev.event === 'content_block_stop').length, 1, 'once');
  t.end();
});

t.test('emoji split into surrogate halves', (t) => {
  const run = drive(
    'messages',
    [rule('x', 'block', literal('😀x'))],
    messagesStream(['hi \ud83d', '\ude00y']),
  );
  t.equal(messagesText(run.client), 'hi 😀y');
  t.notOk(run.client.some((ev) => hasLoneSurrogate(messagesText([ev]))));
  t.end();
});

t.test('a log rule changes nothing, and is told', (t) => {
  const run = drive('messages', [rule('seen', 'log', literal('plan'))], messagesStream(['the ', 'plan']));
  t.ok(run.steps.every((s) => s.kept));
  t.same(run.acted, ['seen:log']);
  t.end();
});
