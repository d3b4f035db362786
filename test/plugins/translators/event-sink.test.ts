/**
 * The sink's two ways of writing an event give the same bytes: a delta written from its members' JSON
 * is the event `emit` would have serialised, escapes and numbering included.
 */
import t from 'tap';
import fc from 'fast-check';
import { EventSink } from '../../../plugins/translators/responses-output/event-sink';
import { MessageStream } from '../../../plugins/translators/responses-output/stream-items';

t.test('emitJson writes the bytes emit writes', (t) => {
  fc.assert(
    fc.property(fc.string(), fc.string(), fc.nat(), fc.nat(), (delta, itemId, contentIndex, outputIndex) => {
      const built = new EventSink();
      const written = new EventSink();
      for (const sink of [built, written]) sink.emit('response.created', { response: { id: 'r' } });
      built.emit('response.output_text.delta', {
        content_index: contentIndex,
        delta,
        item_id: itemId,
        logprobs: [],
        output_index: outputIndex,
      });
      written.emitJson(
        'response.output_text.delta',
        `"content_index":${contentIndex},"delta":${JSON.stringify(delta)},"item_id":${JSON.stringify(itemId)},"logprobs":[],"output_index":${outputIndex}`,
      );
      t.strictSame(written.take(), built.take());
    }),
    { numRuns: 200 },
  );
  t.end();
});

t.test("a message's text deltas, written in a frame per part, are the events emit writes", (t) => {
  const piece = fc.record({
    kind: fc.constantFrom('output_text', 'refusal'),
    text: fc.string({ minLength: 1 }),
  });
  fc.assert(
    fc.property(fc.string(), fc.nat(3), fc.array(piece, { maxLength: 8 }), (id, outputIndex, pieces) => {
      const sink = new EventSink();
      const message = new MessageStream(id, JSON.stringify(id), outputIndex, sink);
      sink.take();
      let contentIndex = -1;
      let kind: string | undefined;
      for (const { kind: k, text } of pieces) {
        message.append(k, text, sink);
        const events = sink.take();
        if (k !== kind) [contentIndex, kind] = [contentIndex + 1, k];
        const delta = events.at(-1)!;
        if (k !== 'output_text') continue;
        const members = {
          content_index: contentIndex,
          delta: text,
          item_id: id,
          logprobs: [],
          output_index: outputIndex,
        };
        const expected = new EventSink();
        for (let n = 0; n < JSON.parse(delta.data).sequence_number; n++) expected.emit('x', {});
        expected.take();
        expected.emit('response.output_text.delta', members);
        t.strictSame(delta, expected.take()[0]);
      }
    }),
    { numRuns: 200 },
  );
  t.end();
});
