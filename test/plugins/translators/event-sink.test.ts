/**
 * The sink's two ways of writing an event give the same bytes: a delta written from its members' JSON
 * is the event `emit` would have serialised, escapes and numbering included.
 */
import t from 'tap';
import fc from 'fast-check';
import { EventSink } from '../../../plugins/translators/responses-output/event-sink';

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
