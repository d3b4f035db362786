/**
 * Reads a vendor's own Responses answer, relayed as it came: the JSON Response's `usage`, or in a stream
 * the usage of the terminal event's Response (`response.completed`, `response.incomplete`, or
 * `response.failed`, which may carry what was spent before the failure). Most events matter only to the
 * client: an event is parsed only when its name says it ends the Response; text deltas are kept unread
 * for an estimate, which only a stream cut before its end needs.
 */
import { DeferredCount, type RelayingReader } from '../../../core/kit/upstream';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { SseEvent, Usage } from '../../../core/kit/plugin';
import { itemsChars, readResponsesUsage } from '../../apis/responses-usage';
import { usageOrEstimate } from './usage-or-estimate';

/** What an event ends: the Response, complete or failed. */
type Ending = 'complete' | 'failed';

const ENDINGS: ReadonlyMap<string, Ending> = new Map([
  ['response.completed', 'complete'],
  ['response.incomplete', 'complete'],
  ['response.failed', 'failed'],
  ['error', 'failed'],
]);

/** An event's data parsed, or undefined when it is not a JSON object. */
function parsed(data: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Generated characters of a delta event (`output_text`, `refusal`, `reasoning_text`, arguments, …). */
function deltaChars(data: string): number {
  const ev = parsed(data);
  return typeof ev?.delta === 'string' ? ev.delta.length : 0;
}

export class ResponsesResponseReader implements RelayingReader {
  complete = false;
  failed = false;
  private reported: Usage | undefined;
  private readonly delivered = new DeferredCount(deltaChars);

  constructor(
    /** The input's tokens, estimated, for an answer that never reported its usage. */
    private readonly promptTokens: () => number,
  ) {}

  usageMember(usage: JsonObject): Usage | undefined {
    return (this.reported = readResponsesUsage(usage));
  }

  json(body: JsonObject): { usage: Usage } {
    this.reported = readResponsesUsage(body.usage);
    // A Response without usage (the API's type makes it optional): its output text is what was delivered.
    if (!this.reported) this.delivered.add(itemsChars(body.output));
    return { usage: this.usage() };
  }

  event(ev: SseEvent): SseEvent {
    // The API names every event; an unnamed one is read for its `type`.
    const payload = ev.event === undefined ? parsed(ev.data) : undefined;
    const type = ev.event ?? (typeof payload?.type === 'string' ? payload.type : '');
    const ending = ENDINGS.get(type);
    if (ending === undefined) {
      if (type.endsWith('.delta')) this.delivered.later(ev.data);
      return ev;
    }
    this[ending === 'complete' ? 'complete' : 'failed'] = true;
    const response = (payload ?? parsed(ev.data))?.response;
    if (isJsonObject(response)) this.reported = readResponsesUsage(response.usage) ?? this.reported;
    return ev;
  }

  usage(): Usage {
    return usageOrEstimate(this.reported, this.promptTokens, this.delivered);
  }
}
