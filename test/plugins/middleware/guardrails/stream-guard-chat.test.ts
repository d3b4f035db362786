/**
 * The stream guard on chat completions streams: clean text goes on as the upstream's own events, a
 * possible match waits at most for the piece that settles it, a block ends the stream as a filtered
 * answer (`content_filter`, the usage chunk when asked, `[DONE]`) with none of the match released, a
 * mask replaces a match split across chunks, tool call arguments are read alike, and the held rest goes
 * out at the choice's end or the upstream's.
 */
import t from 'tap';
import {
  chatStream,
  chatText,
  chatToolStream,
  chatTwoChoices,
  drive,
  hasLoneSurrogate,
  json,
  literal,
  rule,
} from './stream-guard-helpers';

const secret = rule('no-secret', 'block', literal('secret'));

t.test('clean text goes on as the same events', (t) => {
  const events = chatStream(['Hello', ' world', ', all', ' fine.'], { usage: true });
  const run = drive('chat-completions', [secret], events, { includeUsage: true });
  t.ok(
    run.steps.every((s) => s.kept),
    'every event is the upstream own object',
  );
  t.same(run.flushed, [], 'nothing held at the end');
  t.equal(run.final, undefined);
  t.same(run.acted, []);
  t.end();
});

t.test('a possible match waits one event, and goes on once the next piece rules it out', (t) => {
  const events = chatStream(['Hello ', 'sec', 'ond', ' try']);
  const run = drive('chat-completions', [secret], events);
  t.ok(run.steps[1]!.kept, '"Hello " goes on at once');
  t.same(run.steps[2]!.out, [], '"sec" could begin the match: held');
  t.notOk(run.steps[3]!.kept, 'the next chunk is rewritten');
  t.equal(chatText(run.steps[3]!.out), 'second', 'the held text goes with the piece that settles it');
  t.ok(run.steps[4]!.kept, 'then the upstream events again');
  t.equal(chatText(run.client), 'Hello second try');
  t.ok(
    run.steps.slice(4).every((s) => s.kept),
    'finish and [DONE] kept',
  );
  t.end();
});

t.test('a word split across three chunks is blocked with none of it released', (t) => {
  const events = chatStream(['The ', 'sec', 'r', 'et plan', ' follows'], { usage: true });
  const run = drive('chat-completions', [secret], events, { includeUsage: true });
  t.equal(chatText(run.client), 'The ', 'only the text before the match');
  t.same(run.acted, ['no-secret:block']);
  t.equal(run.steps.length, 5, 'the stream ends at the chunk completing the match');
  const final = run.final!;
  t.equal(final.length, 3);
  t.match(json(final[0]!), {
    id: 'chatcmpl-sim1',
    object: 'chat.completion.chunk',
    created: 1788205738,
    model: 'modela-5.5',
    choices: [{ index: 0, delta: {}, finish_reason: 'content_filter' }],
  });
  t.match(json(final[1]!), {
    id: 'chatcmpl-sim1',
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
  });
  t.equal(final[2]!.data, '[DONE]');
  t.notOk(
    run.client.some((ev) => ev.data.includes('sec')),
    'no character of the word in any event',
  );
  t.end();
});

t.test('a block within one chunk releases the text before the match', (t) => {
  const run = drive('chat-completions', [secret], chatStream(['Hello', ' my secret is out']));
  t.equal(chatText(run.client), 'Hello my ');
  t.equal(run.final!.length, 2, 'no usage chunk when the client did not ask');
  t.equal(run.final![1]!.data, '[DONE]');
  t.end();
});

t.test('a block ends every unfinished choice', (t) => {
  const run = drive('chat-completions', [secret], chatTwoChoices(['a ', 'secret'], ['b ', 'c ', 'd']));
  t.equal(chatText(run.client, 0), 'a ');
  t.equal(chatText(run.client, 1), 'b ');
  const finishes = run.final!.slice(0, -1).map((ev) => json<{ choices: unknown[] }>(ev).choices[0]);
  t.same(finishes, [
    { index: 0, delta: {}, finish_reason: 'content_filter' },
    { index: 1, delta: {}, finish_reason: 'content_filter' },
  ]);
  t.end();
});

t.test('a mask replaces a match split across chunks', (t) => {
  const email = rule('email', 'mask', literal('a@b.io', '[EMAIL]'));
  const run = drive('chat-completions', [email], chatStream(['mail ', 'a', '@', 'b.', 'io now']));
  t.equal(chatText(run.client), 'mail [EMAIL] now');
  t.same(run.acted, ['email:mask']);
  t.equal(run.final, undefined, 'the stream goes on');
  t.ok(run.steps.at(-1)!.kept, '[DONE] kept');
  t.end();
});

t.test('tool call arguments are read, run by run', (t) => {
  const city = rule('city', 'mask', literal('Paris', '[CITY]'));
  const run = drive('chat-completions', [city], chatToolStream(['{"city":"', 'Pa', 'ris"}']));
  t.equal(chatText(run.client), '{"city":"[CITY]"}');
  t.ok(run.steps[0]!.kept, 'the header chunk, its arguments empty, goes on');
  t.match(json(run.client[0]!), { choices: [{ delta: { tool_calls: [{ id: 'call_sim' }] } }] });
  const blocked = drive(
    'chat-completions',
    [rule('city', 'block', literal('Paris'))],
    chatToolStream(['{"city":"Par', 'is"}']),
  );
  t.equal(chatText(blocked.client), '{"city":"');
  t.match(json(blocked.final![0]!), { choices: [{ finish_reason: 'content_filter' }] });
  t.end();
});

t.test("held chunks go out as they came before the choice's finish", (t) => {
  const run = drive('chat-completions', [secret], chatStream(['It is a se', 'c']));
  t.same(run.steps[1]!.out, [], '"se" undecided: its chunk waits');
  t.same(run.steps[2]!.out, [], '"sec" still undecided');
  const finish = run.steps[3]!;
  t.equal(finish.out.length, 3, 'the held chunks, then the finish chunk');
  t.ok(
    finish.out.every((ev, i) => ev === run.steps[i + 1]!.given),
    'each the upstream own object, in order',
  );
  t.equal(chatText(run.client), 'It is a sec');
  t.end();
});

t.test("the held rest goes out before [DONE], and at the upstream's end", (t) => {
  const noFinish = chatStream(['It is a se']).filter((ev) => !ev.data.includes('"stop"'));
  const run = drive('chat-completions', [secret], noFinish);
  t.same(run.steps.at(-1)!.out, [run.steps[1]!.given, run.steps.at(-1)!.given], 'as it came, before [DONE]');
  t.equal(chatText(run.client), 'It is a se');
  const cut = drive('chat-completions', [secret], chatStream(['It is a se'], { finish: false }));
  t.equal(cut.flushed[0], cut.steps[1]!.given, 'flush releases the chunk the cut stream held');
  t.equal(chatText(cut.client), 'It is a se');
  // 'x secret' could still become 'x secretive' (held whole), and 'secret' is decided only at the end.
  const rules = [
    rule('greedy', 'block', literal('secret', '[X]', true)),
    rule('long', 'log', literal('x secretive')),
  ];
  const blocked = drive('chat-completions', rules, chatStream(['x secret'], { finish: false }));
  t.same(blocked.steps[1]!.out, [], 'all held');
  t.same(blocked.flushed, [], 'a block at the end returns nothing');
  t.equal(chatText(blocked.final!), 'x ', 'the text before it leads the final events');
  t.same(blocked.acted, ['greedy:block']);
  t.equal(blocked.final!.at(-1)!.data, '[DONE]');
  t.end();
});

t.test('emoji split into surrogate halves', (t) => {
  const smile = rule('smiles', 'block', literal('😀😀'));
  const run = drive('chat-completions', [smile], chatStream(['ok 😀', '\ud83d', '\ude01 fine']));
  t.equal(chatText(run.client), 'ok 😀😁 fine');
  t.notOk(
    run.client.some((ev) => ev.data !== '[DONE]' && hasLoneSurrogate(chatText([ev]))),
    'no event carries half a character',
  );
  const inside = drive(
    'chat-completions',
    [rule('x', 'block', literal('😀x'))],
    chatStream(['hi \ud83d', '\ude00x']),
  );
  t.equal(chatText(inside.client), 'hi ', 'a match beginning inside a pair: none of the pair released');
  t.ok(inside.final);
  t.end();
});

t.test('a log rule changes nothing, and is told', (t) => {
  const logged = rule('seen', 'log', literal('plan'));
  const events = chatStream(['the ', 'plan', ' works']);
  const run = drive('chat-completions', [logged], events);
  t.equal(chatText(run.client), 'the plan works');
  t.ok(
    run.steps.every((s) => s.kept),
    'every event is the upstream own object',
  );
  t.same(run.acted, ['seen:log']);
  t.equal(run.final, undefined);
  t.end();
});
