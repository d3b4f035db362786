/**
 * A stored stream as this call's client asked for it. The chat API sends its usage chunk (no choices,
 * the call's usage) only when `stream_options.include_usage` asks for it, and the cache key leaves
 * stream_options out: so the chunk is taken out of a replay that did not ask, and written from the
 * entry's usage (before `[DONE]`) into one that asked when the stored stream had none. The other APIs
 * carry usage in their own events, the same for every client.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { SseEvent, Usage } from '../../../core/kit/plugin';
import { CHAT_DONE, chatUsageChunk } from '../../../core/kit/upstream';

type Replay = (events: readonly SseEvent[], body: JsonObject, usage: Usage) => readonly SseEvent[];

/** The chunk a chat stream's usage travels in: no choices, a usage member. */
function isUsageChunk(ev: SseEvent): boolean {
  if (!ev.data.includes('"usage"')) return false;
  try {
    const chunk = JSON.parse(ev.data) as { choices?: unknown; usage?: unknown };
    return Array.isArray(chunk.choices) && chunk.choices.length === 0 && typeof chunk.usage === 'object';
  } catch {
    return false;
  }
}

/** The id, created and model every chunk of the answer repeats, from its first chunk. */
function answerHead(events: readonly SseEvent[]): { id: string; created: number; model: string } | undefined {
  try {
    const first = JSON.parse(events[0]?.data ?? '') as { id?: unknown; created?: unknown; model?: unknown };
    const { id, created, model } = first;
    return typeof id === 'string' && typeof created === 'number' && typeof model === 'string'
      ? { id, created, model }
      : undefined;
  } catch {
    return undefined;
  }
}

const chatReplay: Replay = (events, body, usage) => {
  const wanted = (body.stream_options as JsonObject | undefined)?.include_usage === true;
  const at = events.findIndex(isUsageChunk);
  if (wanted === at >= 0) return events;
  if (!wanted) return events.filter((_, i) => i !== at);
  const head = answerHead(events);
  if (!head) return events;
  const done = events.findIndex((ev) => ev.data === CHAT_DONE.data);
  const before = done >= 0 ? done : events.length;
  return [...events.slice(0, before), chatUsageChunk(head, usage), ...events.slice(before)];
};

/** How each endpoint's stored stream becomes this call's; an endpoint not listed replays as stored. */
const REPLAYS: Readonly<Record<string, Replay>> = { 'chat-completions': chatReplay };

export function replayed(
  endpoint: string,
  events: readonly SseEvent[],
  body: JsonObject,
  usage: Usage,
): readonly SseEvent[] {
  return REPLAYS[endpoint]?.(events, body, usage) ?? events;
}
