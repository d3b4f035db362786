/**
 * Reads usage from an OpenAI-shaped chat response, JSON or stream, for any of the three chat families.
 * When the gateway asked the upstream for usage that the client did not ask for, the usage chunk is
 * dropped, and so are the `usage` keys unless the upstream sends them unasked (`nullUsageUnasked`), so
 * the client sees what the vendor would have sent it. A stream that never delivered usage is estimated
 * from what reached the client.
 *
 * Most chunks matter to nobody but the client, so a chunk is parsed only when its text shows it may hold
 * an error or usage (see `DeferredCount` for the text the estimate needs).
 */
import {
  DeferredCount,
  estimateTokens,
  type RelayingReader,
  type StreamSkim,
} from '../../../core/kit/upstream';
import type { JsonObject } from '../../../core/kit/json';
import type { SseEvent, Usage } from '../../../core/kit/plugin';
import { generatedChars, readChatUsage } from './chat-usage';
import { usageOrEstimate } from './usage-or-estimate';
import { ERROR_END, holdsOnlyNullUsage, usageKeyAt, withoutNullUsage } from './null-usage';

/** Generated characters of a chunk's choices' deltas. */
function deltaChars(chunk: JsonObject): number {
  if (!Array.isArray(chunk.choices)) return 0;
  let chars = 0;
  for (const choice of chunk.choices as JsonObject[]) chars += generatedChars(choice.delta);
  return chars;
}

/** Characters delivered by chunks only read when the stream ends without usage (see DeferredCount). */
function deferredDeltaChars(data: string): number {
  try {
    return deltaChars(JSON.parse(data) as JsonObject);
  } catch {
    return 0;
  }
}

export class ChatResponseReader implements RelayingReader {
  complete = false;
  failed = false;
  private reported: Usage | undefined;
  private readonly delivered = new DeferredCount(deferredDeltaChars);
  /** Whether `"usage": null` members reach the client as the upstream wrote them. */
  private readonly keepsNullUsage: boolean;
  private skimmer: StreamSkim | undefined;

  constructor(
    /** True when the client did not ask for usage in its stream. */
    private readonly stripUsage: boolean,
    /** True when the upstream sends `"usage": null` on its chunks unasked (ChatFamilySpec.nullUsageUnasked). */
    nullUsageUnasked: boolean,
    private readonly promptTokens: () => number,
  ) {
    this.keepsNullUsage = !stripUsage || nullUsageUnasked;
  }

  /**
   * The chunks `event` does more with than keep for the estimate (the end, errors, usage, a null one it
   * must cut) are told by the same text checks; the rest are relayed unparsed. Made when a stream asks:
   * a JSON answer never does.
   */
  get skim(): StreamSkim {
    return (this.skimmer ??= {
      reads: (frame) => frame.includes('[DONE]') || frame.includes(ERROR_END) || this.usageToRead(frame) >= 0,
      passed: (frames) => this.delivered.laterFrames(frames),
    });
  }

  usageMember(usage: JsonObject): Usage | undefined {
    return readChatUsage(usage);
  }

  json(body: JsonObject): { usage: Usage; replace?: JsonObject } {
    const usage = readChatUsage(body.usage);
    if (usage) return { usage };
    // The contract promises `usage` on every response: supply an estimate when the upstream left it out.
    const choices = Array.isArray(body.choices) ? (body.choices as JsonObject[]) : [];
    const completion = estimateTokens(choices.reduce((n, c) => n + generatedChars(c.message), 0));
    const estimate: Usage = {
      promptTokens: this.promptTokens(),
      completionTokens: completion,
      estimated: true,
    };
    const wire = {
      prompt_tokens: estimate.promptTokens,
      completion_tokens: estimate.completionTokens,
      total_tokens: estimate.promptTokens + estimate.completionTokens,
    };
    return { usage: estimate, replace: { ...body, usage: wire } };
  }

  event(ev: SseEvent): SseEvent | null {
    const { data } = ev;
    if (data.startsWith('[DONE]')) {
      this.complete = true;
      return ev;
    }
    // Keys are matched as the upstream writes them: without `"error"` or `"usage"` in its text, a chunk
    // holds neither key, and only the estimate may ever need it; nor does one whose only usage is a null
    // that the client gets as it is.
    if (data.includes(ERROR_END)) return this.parsedEvent(ev);
    const usageAt = this.usageToRead(data);
    if (usageAt < 0) {
      this.delivered.later(data);
      return ev;
    }
    // Here the null, if it is one, is the gateway's asking, and is cut from the text.
    const stripped = withoutNullUsage(data, usageAt);
    if (stripped === undefined) return this.parsedEvent(ev);
    this.delivered.later(data);
    return { ...ev, data: stripped };
  }

  /**
   * Where `"usage"` first appears in `text` when it may hold usage figures, or a `"usage":null` the client
   * must not get; else -1.
   */
  private usageToRead(text: string): number {
    const at = usageKeyAt(text);
    return at >= 0 && this.keepsNullUsage && holdsOnlyNullUsage(text, at) ? -1 : at;
  }

  /** An event that may carry an error or usage, read in full. */
  private parsedEvent(ev: SseEvent): SseEvent | null {
    let chunk: JsonObject;
    try {
      chunk = JSON.parse(ev.data) as JsonObject;
    } catch {
      return ev; // not JSON: relayed as it came
    }
    if (chunk.error !== undefined) {
      this.failed = true;
      return ev;
    }
    this.delivered.add(deltaChars(chunk));
    if (!('usage' in chunk)) return ev;
    // Several chunks may carry usage (Gemini): the last one wins, counts are not added up.
    this.reported = readChatUsage(chunk.usage) ?? this.reported;
    if (!this.stripUsage) return ev;
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return null; // the usage-only chunk
    if (chunk.usage === null && this.keepsNullUsage) return ev;
    delete chunk.usage;
    return { ...ev, data: JSON.stringify(chunk) };
  }

  usage(): Usage {
    return usageOrEstimate(this.reported, this.promptTokens, this.delivered);
  }
}
