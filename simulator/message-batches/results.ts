import type { LineResult } from '../batch-runs/line';
import type { MessageBatch } from './batch';

/** A request's result: the Message the single call would have answered, its error body, or `canceled`. */
function result(r: LineResult | undefined): Record<string, unknown> {
  if (!r) return { type: 'canceled' };
  return r.status === 200 ? { type: 'succeeded', message: r.body } : { type: 'errored', error: r.body };
}

/** The results file of an ended batch: a JSON line per request, in request order. */
export function resultsJsonl(batch: MessageBatch): Buffer {
  const { lines, results } = batch.run;
  const text = lines.map(
    (line, i) => `${JSON.stringify({ custom_id: line.customId, result: result(results[i]) })}\n`,
  );
  return Buffer.from(text.join(''), 'utf8');
}
