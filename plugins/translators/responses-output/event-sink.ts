/**
 * Where a translated stream's events are written: each gets its `sequence_number`, counting from 0
 * across the whole stream as the API numbers them, and the SSE event name the API gives it, its `type`.
 */
import type { JsonObject } from '../../../core/kit/json';
import { JsonEvent, type SseEvent } from '../../../core/kit/plugin';

/** An object's members as JSON, without its braces (`""` when it has none). */
const membersJson = (members: JsonObject): string => JSON.stringify(members).slice(1, -1);

export class EventSink {
  private next = 0;
  private pending: SseEvent[] = [];

  /** Writes the event `type` with its `members`. */
  emit(type: string, members: JsonObject): void {
    // Serialised as they are and put between `type` and the number: a spread into a new object would
    // take V8's slow path for every event's different shape. A member named `type` keeps its place first.
    if ('type' in members) return this.emitJson(type, membersJson({ ...members, type: undefined }));
    this.emitJson(type, membersJson(members));
  }

  /**
   * Writes the event `type` whose members are already JSON (`"a":1,"b":"x"`, in the order `emit` would
   * write them): the same bytes as `emit`, for the deltas that make up most of a stream, without building
   * an object per delta and serialising it whole.
   */
  emitJson(type: string, members: string): void {
    const between = members === '' ? '' : `${members},`;
    const data = `{"type":"${type}",${between}"sequence_number":${this.next++}}`;
    this.pending.push(new JsonEvent(type, data));
  }

  /**
   * Writes the event `type` whose JSON up to its number is `open` (`{"type":"…",…,"sequence_number":`):
   * a delta's JSON in four pieces, where one built member by member is a tree of fifteen that every read
   * of the event walks.
   */
  emitOpen(type: string, open: string): void {
    this.pending.push(new JsonEvent(type, `${open}${this.next++}}`));
  }

  /** The events written since the last call. */
  take(): SseEvent[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

/** An event's bytes on the wire (its data is one line of JSON). */
export const frameOf = (ev: SseEvent): string => `event: ${String(ev.event)}\ndata: ${ev.data}\n\n`;
