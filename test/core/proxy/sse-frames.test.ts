import t from 'tap';
import fc from 'fast-check';
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

/** What a reader that reads only events holding one of `marks` is handed: runs of unread bytes, and the parsed frames between them. */
function skimmed(
  pieces: readonly (string | Buffer)[],
  marks: readonly string[],
): { runs: string[]; read: Seen[]; order: string[] } {
  const runs: string[] = [];
  const read: Seen[] = [];
  const order: string[] = [];
  const reader = new SseFrames(
    (buf, start, end, event) => {
      read.push({ bytes: buf.toString('utf8', start, end), event });
      order.push(buf.toString('utf8', start, end));
    },
    {
      reads: (frame) => marks.some((mark) => frame.includes(mark)),
      onRun: (buf, start, end) => {
        runs.push(buf.toString('utf8', start, end));
        order.push(buf.toString('utf8', start, end));
      },
    },
  );
  for (const piece of pieces) reader.push(Buffer.isBuffer(piece) ? piece : Buffer.from(piece));
  reader.end();
  return { runs, read, order };
}

void t.test('with a skim: only the events it reads are parsed; the rest go on as bytes, in order', (t) => {
  const text =
    'data: {"d":"a"}\n\ndata: {"d":"b"}\n\ndata: {"usage":{"n":1}}\n\n: ping\n\ndata: {"d":"é"}\n\ndata: [DONE]\n\n';
  const { runs, read, order } = skimmed([text], ['usage"', '[DONE]']);
  t.strictSame(
    runs,
    ['data: {"d":"a"}\n\ndata: {"d":"b"}\n\n', ': ping\n\ndata: {"d":"é"}\n\n'],
    'runs of unmarked events',
  );
  t.strictSame(
    read.map((s) => s.event?.data),
    ['{"usage":{"n":1}}', '[DONE]'],
    'the marked events are parsed',
  );
  t.equal(order.join(''), text, 'every byte once, in the upstream order');
  t.end();
});

void t.test('with a skim: an event split anywhere is judged whole, its marks split across reads too', (t) => {
  const text = 'data: {"d":"a✓"}\n\ndata: {"usage":{"n":1}}\n\ndata: {"d":"b"}\n\n';
  const bytes = Buffer.from(text);
  for (let cut = 1; cut < bytes.length; cut++) {
    const { read, order } = skimmed([bytes.subarray(0, cut), bytes.subarray(cut)], ['usage"']);
    t.strictSame(
      read.map((s) => s.event?.data),
      ['{"usage":{"n":1}}'],
      `cut at byte ${cut}: only the usage event is read`,
    );
    t.equal(order.join(''), text, `cut at byte ${cut}: nothing added or lost`);
  }
  t.end();
});

void t.test('with a skim: CR line ends split events as without one', (t) => {
  const { runs, read } = skimmed(['data: a\r\n\r\ndata: usage"\r\rdata: c\r\n\r\n'], ['usage"']);
  t.strictSame(runs, ['data: a\r\n\r\n', 'data: c\r\n\r\n']);
  t.strictSame(
    read.map((s) => s.event?.data),
    ['usage"'],
  );
  t.end();
});

void t.test('events read the same whether a read is ASCII or not, wherever the reads split them', (t) => {
  const line = fc.string({ unit: 'grapheme' }).filter((s) => !/[\r\n]/.test(s));
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), fc.array(fc.nat()), (datas, cuts) => {
      const bytes = Buffer.from(datas.map((d) => `data: ${d}\n\n`).join(''));
      const points = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
      const pieces = [0, ...points].map((from, i) => bytes.subarray(from, points[i] ?? bytes.length));
      t.strictSame(data(frames(pieces.filter((p) => p.length > 0))), datas);
    }),
    { numRuns: 300 },
  );
  t.end();
});
