/**
 * The Messages API's stream: each content block is one run, its `text_delta`s' `text` or its
 * `input_json_delta`s' `partial_json` (thinking is not read); `content_block_stop` ends it. A blocked
 * stream stops the open block and ends the message with `stop_reason: "refusal"`, as Anthropic ends an
 * answer its own classifiers stop.
 */
import { isJsonObject, type JsonObject } from '../../../../../core/kit/json';
import type { SseEvent } from '../../../../../core/kit/plugin';
import type { BarePiece, BlockedEnd, EventView, StreamShape } from './shape';
import { madeEvent } from './made-event';
import { STRING_INSIDE, stringText } from '../../texts/string-text';

/** The member that holds a delta's text, by the delta's type. */
const TEXT_MEMBER: Readonly<Record<string, 'text' | 'partial_json'>> = {
  text_delta: 'text',
  input_json_delta: 'partial_json',
};

/** A delta event as Anthropic writes it, compact: its index, the delta's type, and its text member. */
const BARE_DELTA = new RegExp(
  String.raw`^\{"type":"content_block_delta","index":(\d+),"delta":\{"type":"(\w+)","(\w+)":"${STRING_INSIDE}"\}\}$`,
);

const NOTHING: EventView = { pieces: [], ends: [], bare: false };

const named = (payload: JsonObject & { type: string }): SseEvent => madeEvent(payload, true);

export class MessagesShape implements StreamShape {
  /** Each run's delta type, to write its rest as the same kind of delta. */
  private readonly kinds = new Map<string, string>();
  /** The blocks started and not yet stopped, as the client saw them. */
  private readonly open = new Set<number>();

  read(payload: JsonObject): EventView {
    const { index } = payload;
    if (typeof index !== 'number') return NOTHING;
    if (payload.type === 'content_block_stop')
      return { pieces: [], ends: [{ run: `${index}` }], bare: false };
    const { delta } = payload;
    if (payload.type !== 'content_block_delta' || !isJsonObject(delta) || typeof delta.type !== 'string')
      return NOTHING;
    const kind = delta.type;
    const member = TEXT_MEMBER[kind];
    const text = member && delta[member];
    if (member === undefined || typeof text !== 'string') return NOTHING;
    const run = `${index}`;
    this.kinds.set(run, kind);
    const put = (next: string): void => void (delta[member] = next);
    return { pieces: [{ run, text, put }], ends: [], bare: true };
  }

  bare(data: string): BarePiece | undefined {
    const match = BARE_DELTA.exec(data);
    if (match === null) return undefined;
    const [, index, kind, member, inside] = match as unknown as [string, string, string, string, string];
    if (TEXT_MEMBER[kind] !== member) return undefined;
    const text = stringText(inside);
    if (text === undefined) return undefined;
    const run = `${Number(index)}`;
    this.kinds.set(run, kind);
    return { run, text };
  }

  closes(): boolean {
    return false;
  }

  passing(payload: JsonObject): boolean {
    const { index } = payload;
    if (typeof index !== 'number') return false;
    if (payload.type === 'content_block_start') this.open.add(index);
    if (payload.type === 'content_block_stop') this.open.delete(index);
    return false;
  }

  textEvent(run: string, text: string): SseEvent {
    const kind = this.kinds.get(run) ?? 'text_delta';
    const delta = { type: kind, [TEXT_MEMBER[kind] ?? 'text']: text };
    return named({ type: 'content_block_delta', index: Number(run), delta });
  }

  blockedEnd({ usage }: BlockedEnd): SseEvent[] {
    const stops = [...this.open]
      .sort((a, b) => a - b)
      .map((index) => named({ type: 'content_block_stop', index }));
    return [
      ...stops,
      named({
        type: 'message_delta',
        delta: { stop_reason: 'refusal', stop_sequence: null },
        usage: { output_tokens: usage.completionTokens },
      }),
      named({ type: 'message_stop' }),
    ];
  }
}
