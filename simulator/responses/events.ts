/**
 * The events of a streamed Response, in the order OpenAI sends them (test/kit/fixtures/responses/):
 * `response.created` and `response.in_progress`, the output item added, its text or arguments in
 * deltas, each part and the item done, then `response.completed` (or `response.incomplete`) with the
 * whole Response and its usage. Every event is named by its `type` and numbered from 0. Generated
 * lazily, one token a delta, so a paced or cut stream serializes only what goes out.
 */
import type { ChoicePlan, ReplyPlan } from '../chat/reply';
import type { ChatRequest } from '../chat/request';
import type { StreamEvent } from '../sse-writer';
import {
  outputItem,
  responseBody,
  responsesUsage,
  textPart,
  type ItemStatus,
  type ResponseMeta,
  type ResponseState,
} from './response';

/**
 * Numbers a stream's events and writes each as the API frames it: the members, the number, and the
 * members the API writes after it (`text` on a done event, in the recorded order).
 */
export class EventCounter {
  private next = 0;

  frame(type: string, members: Record<string, unknown>, after: Record<string, unknown> = {}): string {
    const payload = { type, ...members, sequence_number: this.next++, ...after };
    return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
  }
}

/** The deltas and closing events of a message: one `output_text.delta` a token. */
function* messageEvents(c: ChoicePlan, meta: ResponseMeta, events: EventCounter): Generator<StreamEvent> {
  const at = { content_index: 0, item_id: meta.itemId };
  yield {
    frame: events.frame('response.content_part.added', { ...at, output_index: 0, part: textPart('') }),
    step: null,
  };
  const tokens = c.content ?? [];
  for (const [step, delta] of tokens.entries()) {
    const members = { content_index: 0, delta, item_id: meta.itemId, logprobs: [], output_index: 0 };
    yield { frame: events.frame('response.output_text.delta', members), step };
  }
  const text = tokens.join('');
  yield {
    frame: events.frame('response.output_text.done', { ...at, logprobs: [], output_index: 0 }, { text }),
    step: null,
  };
  yield {
    frame: events.frame('response.content_part.done', { ...at, output_index: 0, part: textPart(text) }),
    step: null,
  };
}

/** The argument deltas of a function call, one fragment each, and their end. */
function* callEvents(c: ChoicePlan, meta: ResponseMeta, events: EventCounter): Generator<StreamEvent> {
  const fragments = c.toolCall?.argFragments ?? [];
  for (const [step, delta] of fragments.entries()) {
    yield {
      frame: events.frame('response.function_call_arguments.delta', {
        delta,
        item_id: meta.itemId,
        output_index: 0,
      }),
      step,
    };
  }
  const args = fragments.join('');
  yield {
    frame: events.frame('response.function_call_arguments.done', {
      arguments: args,
      item_id: meta.itemId,
      output_index: 0,
    }),
    step: null,
  };
}

export function* responseEvents(
  req: ChatRequest,
  plan: ReplyPlan,
  meta: ResponseMeta,
  events: EventCounter,
): Generator<StreamEvent, void, undefined> {
  const c = plan.choices[0]!;
  const state = (s: ResponseState): Record<string, unknown> => responseBody(req, meta, s);
  const opening = state({ status: 'in_progress', output: [], usage: null });
  yield { frame: events.frame('response.created', { response: opening }), step: null };
  yield { frame: events.frame('response.in_progress', { response: opening }), step: null };
  const added = outputItem(c, meta, 'in_progress', c.toolCall ? '' : null);
  yield { frame: events.frame('response.output_item.added', { item: added, output_index: 0 }), step: null };
  yield* c.toolCall ? callEvents(c, meta, events) : messageEvents(c, meta, events);
  const cut = c.finishReason === 'length';
  const status: ItemStatus = cut ? 'incomplete' : 'completed';
  const item = outputItem(c, meta, status, c.toolCall ? null : (c.content ?? []).join(''));
  yield { frame: events.frame('response.output_item.done', { item, output_index: 0 }), step: null };
  const response = state({ status, output: [item], usage: responsesUsage(plan.usage) });
  yield { frame: events.frame(cut ? 'response.incomplete' : 'response.completed', { response }), step: null };
}
