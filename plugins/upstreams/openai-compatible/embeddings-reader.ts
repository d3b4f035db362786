/**
 * Reads an embeddings answer: one usage record per call, from the vendor's `usage` (`prompt_tokens`,
 * `total_tokens`; embeddings produce no output tokens) or, where the vendor sends none (Gemini's
 * compatible endpoint), estimated from the input and marked so. The client's body is the vendor's,
 * byte for byte, unless the gateway had to change it: its own base64 encoding of vectors the vendor could
 * only send as floats, or the estimated usage added (OpenAI's answer always carries `usage`).
 */
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import { type RelayingReader, tokenCount } from '../../../core/kit/upstream';
import type { SseEvent, Usage } from '../../../core/kit/plugin';
import { withBase64Embeddings } from './float32-base64';

/** The vendor's usage object read as the gateway's Usage; undefined when it holds no count. */
export function readEmbeddingUsage(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage) || typeof usage.prompt_tokens !== 'number') return undefined;
  const prompt = tokenCount(usage.prompt_tokens);
  const total = typeof usage.total_tokens === 'number' ? tokenCount(usage.total_tokens) : prompt;
  return { promptTokens: prompt, completionTokens: 0, totalTokens: total, estimated: false };
}

/** The usage member the client gets where the vendor sent none: the gateway's estimate, in OpenAI's shape. */
const wireUsage = (usage: Usage): JsonObject => ({
  prompt_tokens: usage.promptTokens,
  total_tokens: usage.promptTokens,
});

export class EmbeddingsResponseReader implements RelayingReader {
  // The embeddings API answers in JSON only; there is no stream to complete or fail.
  readonly complete = false;
  readonly failed = false;
  private read: Usage | undefined;

  constructor(
    /** True when the client asked for base64 and the vendor was asked for floats. */
    private readonly encodeBase64: boolean,
    /** The input's tokens, estimated where not counted, for an answer without usage. */
    private readonly promptTokens: () => number,
  ) {}

  usageMember(usage: JsonObject): Usage | undefined {
    // Vectors to encode: the whole body goes to `json`.
    if (this.encodeBase64) return undefined;
    return (this.read = readEmbeddingUsage(usage));
  }

  json(body: JsonObject): { usage: Usage; replace?: JsonObject } {
    const reported = readEmbeddingUsage(body.usage);
    const usage = reported ?? this.estimate();
    this.read = usage;
    if (reported && !this.encodeBase64) return { usage };
    const replace: JsonObject = { ...body };
    if (this.encodeBase64) replace.data = withBase64Embeddings(body.data);
    if (!reported) replace.usage = wireUsage(usage);
    return { usage, replace };
  }

  event(ev: SseEvent): SseEvent {
    return ev;
  }

  usage(): Usage {
    return this.read ?? this.estimate();
  }

  private estimate(): Usage {
    return { promptTokens: this.promptTokens(), completionTokens: 0, estimated: true };
  }
}
