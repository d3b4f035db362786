/**
 * Reads usage from an OpenAI-shaped chat response, JSON or stream, for any of the three chat families.
 * When the gateway asked the upstream for usage that the client did not ask for, the usage chunk and the
 * `usage` keys are stripped, so the client sees what the vendor would have sent it. A stream that never
 * delivered usage is estimated from what reached the client.
 */
import type { JsonObject } from '../../../core/context';
import type { ResponseReader } from '../../../core/plugin';
import type { SseEvent } from '../../../core/sse';
import { estimateTokens, type Usage } from '../../../core/usage';
import { generatedChars, readChatUsage } from './chat-usage';

export class ChatResponseReader implements ResponseReader {
  complete = false;
  failed = false;
  private reported: Usage | undefined;
  private delivered = 0;

  constructor(
    /** True when the client did not ask for usage in its stream. */
    private readonly stripUsage: boolean,
    private readonly promptTokens: () => number,
  ) {}

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
    if (ev.data.startsWith('[DONE]')) {
      this.complete = true;
      return ev;
    }
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
    if (Array.isArray(chunk.choices)) {
      for (const choice of chunk.choices as JsonObject[]) this.delivered += generatedChars(choice.delta);
    }
    if (!('usage' in chunk)) return ev;
    // Several chunks may carry usage (Gemini): the last one wins, counts are not added up.
    this.reported = readChatUsage(chunk.usage) ?? this.reported;
    if (!this.stripUsage) return ev;
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return null; // the usage-only chunk
    delete chunk.usage;
    return { ...ev, data: JSON.stringify(chunk) };
  }

  usage(): Usage {
    return (
      this.reported ?? {
        promptTokens: this.promptTokens(),
        completionTokens: estimateTokens(this.delivered),
        estimated: true,
      }
    );
  }
}
