import type { StreamEvent } from '../sse-writer';
import type { BlockPlan } from './blocks';
import { startedMessage } from './message';
import type { MessagePlan } from './reply';

/** A stream event's JSON; its `type` is also the SSE event name. */
type Payload = { readonly type: string } & Readonly<Record<string, unknown>>;

// Written as the vendor writes it, with a space inside the JSON: clients must parse, not match.
const PING: StreamEvent = { frame: 'event: ping\ndata: {"type": "ping"}\n\n', step: null };

/** An SSE frame named after its payload's `type`, as the vendor always names them. */
export const eventFrame = (payload: Payload): string =>
  `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;

const event = (payload: Payload, step: number | null = null): StreamEvent => ({
  frame: eventFrame(payload),
  step,
});

/** One block: start (the first followed by a ping), deltas, stop; pieces are paced from `firstStep`. */
function* blockEvents(
  b: BlockPlan,
  index: number,
  firstStep: number,
): Generator<StreamEvent, void, undefined> {
  const delta = (d: object, step: number | null = null): StreamEvent =>
    event({ type: 'content_block_delta', index, delta: d }, step);
  yield event({ type: 'content_block_start', index, content_block: b.opening });
  if (index === 0) yield PING;
  for (const d of b.lead) yield delta(d);
  for (const [i, piece] of b.pieces.entries()) yield delta(b.delta(piece), firstStep + i);
  for (const d of b.tail) yield delta(d);
  yield event({ type: 'content_block_stop', index });
}

/**
 * The events of a streamed reply, in the vendor's order: `message_start`, each block, then
 * `message_delta` with the stop reason and cumulative output tokens, then `message_stop`.
 * Generated lazily, so a paced or cut stream serializes only what it sends.
 */
export function* messageEvents(
  id: string,
  model: string,
  plan: MessagePlan,
): Generator<StreamEvent, void, undefined> {
  yield event({ type: 'message_start', message: startedMessage(id, model, plan) });
  let step = 0;
  for (const [index, b] of plan.blocks.entries()) {
    yield* blockEvents(b, index, step);
    step += b.pieces.length;
  }
  yield event({
    type: 'message_delta',
    delta: { stop_reason: plan.stopReason, stop_sequence: null },
    usage: { output_tokens: plan.usage.output },
  });
  yield event({ type: 'message_stop' });
}
