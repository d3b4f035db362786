import t from 'tap';
import { SseFrames } from '../../../core/proxy/sse-frames';
import type { SseEvent } from '../../../core/base/sse';

interface Seen {
  readonly bytes: string;
  readonly event: SseEvent | undefined;
}

/** Feeds `pieces` (then the end of the stream) and returns each frame's bytes and parsed event. */
function frames(pieces: readonly (string | Buffer)[]): Seen[] {
  const seen: Seen[] = [];
  const reader = new SseFrames((buf, start, end, event) =>
    seen.push({ bytes: buf.toString('utf8', start, end), event }),
  );
  for (const piece of pieces) reader.push(Buffer.isBuffer(piece) ? piece : Buffer.from(piece));
  reader.end();
  return seen;
}

const data = (seen: readonly Seen[]): (string | undefined)[] => seen.map((s) => s.event?.data);

void t.test('each whole event is one frame, its bytes as the upstream wrote them', (t) => {
  const text = 'data: {"a":1}\n\nevent: delta\ndata:{"b":2}\n\n: keep-alive\n\ndata: [DONE]\n\n';
  const seen = frames([text]);
  t.strictSame(
    seen.map((s) => s.bytes),
    ['data: {"a":1}\n\n', 'event: delta\ndata:{"b":2}\n\n', ': keep-alive\n\n', 'data: [DONE]\n\n'],
  );
  t.strictSame(data(seen), ['{"a":1}', '{"b":2}', undefined, '[DONE]'], 'a comment has no event');
  t.equal(seen[1]?.event?.event, 'delta', 'the event name is read');
  t.equal(seen.map((s) => s.bytes).join(''), text, 'nothing added or lost');
  t.end();
});

void t.test('an event split anywhere is held until it is whole', (t) => {
  const text = 'data: {"x":"é✓"}\n\ndata: {"y":2}\n\n';
  const bytes = Buffer.from(text);
  for (let cut = 1; cut < bytes.length; cut++) {
    const seen = frames([bytes.subarray(0, cut), bytes.subarray(cut)]);
    t.strictSame(data(seen), ['{"x":"é✓"}', '{"y":2}'], `cut at byte ${cut}`);
  }
  t.end();
});

void t.test('CRLF and CR line ends end events as LF does, even split between their bytes', (t) => {
  t.strictSame(data(frames(['data: a\r\n\r\ndata: b\r\rdata: c\n\r\n'])), ['a', 'b', 'c']);
  t.strictSame(data(frames(['data: a\r', '\n\r', '\ndata: b\r\n\r\n'])), ['a', 'b'], 'CRLF split');
  t.strictSame(
    frames(['data: a\r\n\r\n']).map((s) => s.bytes),
    ['data: a\r\n\r\n'],
    'the frame keeps its own line ends',
  );
  t.end();
});

void t.test('multi-line data and ids are parsed by the WHATWG rules', (t) => {
  const [seen] = frames(['id: 7\ndata: one\ndata: two\n\n']);
  t.equal(seen?.event?.data, 'one\ntwo');
  t.equal(seen?.event?.id, '7');
  t.end();
});

void t.test('a last event without its blank line is still dispatched at the end', (t) => {
  t.strictSame(data(frames(['data: a\n\ndata: b'])), ['a', 'b']);
  t.strictSame(data(frames(['data: a\n\ndata: b\n'])), ['a', 'b']);
  t.strictSame(frames(['data: a\n\n']).length, 1, 'nothing more when the stream ended cleanly');
  t.end();
});
