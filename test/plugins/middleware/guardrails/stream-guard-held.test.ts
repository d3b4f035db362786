/**
 * The stream guard holds an event that carries nothing but text until all of its text is decided, then
 * sends it as it came: with the email detector every piece's last word waits for the next piece, and yet
 * clean text reaches the client as the upstream's own event objects, each at most one event late. A mask
 * or a block among held events gives the client exactly the decided text; held events go out at a run's
 * end, at the answer's end and at the upstream's; Responses numbers still rise.
 */
import t from 'tap';
import type { SseEvent } from '../../../../core/base/sse';
import { detectorMatcher } from '../../../../plugins/middleware/guardrails/finders/detectors';
import {
  chatStream,
  chatText,
  chatTwoChoices,
  drive,
  literal,
  messagesStream,
  messagesText,
  responsesDoneTexts,
  responsesStream,
  responsesText,
  rising,
  rule,
  sequenceNumbers,
  type Run,
} from './stream-guard-helpers';

const email = rule('pii', 'mask', detectorMatcher('email'));
const secret = rule('no-secret', 'block', literal('secret'));
const WORDS = ['Lorem', ' ipsum', ' dolor', ' sit', ' amet', ' consectetur', ' adipiscing', ' elit'];

/** The step at which each given event reached the client as the same object; -1 when it did not. */
function sentAt(run: Run): number[] {
  return run.steps.map(({ given }) => {
    const at = run.steps.findIndex((s) => s.out.includes(given));
    return at >= 0 ? at : run.flushed.includes(given) ? run.steps.length : -1;
  });
}

/** Whether no event's text (as `textOf` reads it) carries a part of `match` longer than two characters. */
const nonePart = (
  events: readonly SseEvent[],
  textOf: (events: readonly SseEvent[]) => string,
  match: string,
): boolean =>
  events.every((ev) => {
    const text = ev.data === '[DONE]' ? '' : textOf([ev]);
    for (let i = 0; i + 3 <= match.length; i++) if (text.includes(match.slice(i, i + 3))) return false;
    return true;
  });

const streams: [string, SseEvent[]][] = [
  ['chat-completions', chatStream(WORDS, { usage: true })],
  ['messages', messagesStream(WORDS)],
  ['responses', responsesStream(WORDS)],
];

for (const [endpoint, events] of streams)
  t.test(`${endpoint}: clean text goes as the upstream's own events, one event late at most`, (t) => {
    const run = drive(endpoint, [email, secret], events);
    t.equal(run.client.length, events.length, 'nothing added or dropped');
    t.ok(
      run.client.every((ev, i) => ev === events[i]),
      'every event the same object, in order',
    );
    const late = sentAt(run).map((at, given) => at - given);
    t.ok(
      late.every((n) => n === 0 || n === 1),
      `each at once or one event late: ${late.join(',')}`,
    );
    t.ok(
      late.some((n) => n === 1),
      'words are held',
    );
    t.end();
  });

t.test('a mask across held chunks: the exact text, none of the match, and then events as they came', (t) => {
  const pieces = ['Mail ', 'jo', 'hn.doe@exam', 'ple.com', ' or call', ' me', ' now'];
  const events = chatStream(pieces);
  const run = drive('chat-completions', [email, secret], events);
  t.equal(chatText(run.client), 'Mail [EMAIL] or call me now');
  t.ok(nonePart(run.client, chatText, 'john.doe@example.com'), 'no part of the address in any event');
  t.same(run.acted, ['pii:mask']);
  const sent = sentAt(run);
  t.ok(sent[1]! >= 0, '"Mail " as it came');
  t.equal(sent[2], -1, 'the chunk where the match begins is rewritten');
  t.ok(
    [5, 6, 7].every((i) => sent[i]! >= 0 && sent[i]! - i <= 1),
    'the chunks after the match go as they came, one late at most',
  );
  t.end();
});

t.test('a mask within one held event rewrites that event alone', (t) => {
  const events = messagesStream(['Write to ', 'a@b.io', ' today', ' please']);
  const run = drive('messages', [email], events);
  t.equal(messagesText(run.client), 'Write to [EMAIL] today please');
  const sent = sentAt(run);
  t.equal(sent[4], -1, 'the delta with the address is rewritten');
  t.ok(sent[5]! >= 0 && sent[6]! >= 0, 'the deltas after it go as they came');
  t.end();
});

t.test('a block among held events: the text before the match, none of it', (t) => {
  const events = chatStream(['Here ', 'is', ' the', ' sec', 're', 't plan', ' ok'], { usage: true });
  const run = drive('chat-completions', [email, secret], events, { includeUsage: true });
  t.equal(chatText(run.client), 'Here is the ');
  t.ok(nonePart(run.client, chatText, 'secret'), 'no part of the match');
  t.same(run.acted, ['no-secret:block']);
  t.equal(run.final!.at(-1)!.data, '[DONE]');
  const mails = drive('responses', [email, secret], responsesStream(['to x@y.io', ' the sec', 'ret']));
  t.equal(responsesText(mails.client), 'to [EMAIL] the ');
  t.same(responsesDoneTexts(mails.final!), Array(4).fill('to [EMAIL] the '));
  t.ok(rising(sequenceNumbers(mails.client)), 'numbers rise');
  t.end();
});

t.test('held events go at the run end, the answer end and the upstream end', (t) => {
  const ended = drive('messages', [email], messagesStream(['a', ' b', ' c']));
  const stop = ended.steps.find((s) => s.given.event === 'content_block_stop')!;
  t.equal(stop.out.at(-2), ended.steps.at(-4)!.given, 'the last delta, as it came, before the stop');
  const noFinish = chatStream(['a', ' b']).filter((ev) => !ev.data.includes('"stop"'));
  const done = drive('chat-completions', [email], noFinish);
  t.same(done.steps.at(-1)!.out, [done.steps[2]!.given, done.steps.at(-1)!.given], 'before [DONE]');
  const cut = drive('responses', [email], responsesStream(['a', ' b'], { end: false }));
  t.same(cut.flushed, [cut.steps.at(-1)!.given], 'at the upstream end');
  t.equal(responsesText(cut.client), 'a b');
  t.end();
});

t.test('two choices interleaved: each chunk goes, in order, with its text whole', (t) => {
  const run = drive('chat-completions', [email], chatTwoChoices(['One', ' two'], ['Uno', ' dos']));
  t.equal(chatText(run.client, 0), 'One two');
  t.equal(chatText(run.client, 1), 'Uno dos');
  t.same(run.flushed, []);
  t.end();
});

t.test('Responses: numbers rise when masked and held deltas go late', (t) => {
  const run = drive('responses', [email], responsesStream(['Mail', ' me at', ' a@b.io', ' or', ' not']));
  t.equal(responsesText(run.client), 'Mail me at [EMAIL] or not');
  t.same(responsesDoneTexts(run.client), Array(4).fill('Mail me at [EMAIL] or not'));
  const numbers = sequenceNumbers(run.client);
  t.ok(rising(numbers), `numbers rise: ${numbers.join(',')}`);
  t.equal(new Set(numbers).size, numbers.length, 'none twice');
  t.end();
});
