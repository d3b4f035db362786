import type { UsageRecord } from '../stores/usage-store';

/**
 * Token counts of one call, as the upstream reported them or as estimated from what was delivered, in
 * one meaning for every vendor (each reader maps its vendor's fields onto it), so that prices apply alike.
 */
export interface Usage {
  /** Every input token, cached ones included. */
  promptTokens: number;
  /** Every output token the vendor bills, reasoning included (some vendors report thinking apart). */
  completionTokens: number;
  /** Of `completionTokens`, those spent thinking, where the vendor says. */
  reasoningTokens?: number;
  /** Of `promptTokens`, those read from the vendor's prompt cache. */
  cacheReadTokens?: number;
  /** Of `promptTokens`, those written to the vendor's prompt cache. */
  cacheWriteTokens?: number;
  /** The vendor's own total, where it reports one. */
  totalTokens?: number;
  /** Images generated (image endpoints bill per image, and per token when the upstream counts them). */
  images?: number;
  /** The image call's requested `size` and `quality`, which may set its price per image; absent when not given. */
  imageSize?: string;
  imageQuality?: string;
  /** True when any count is an estimate (the upstream's own figures never arrived). */
  estimated: boolean;
}

/** What a usage record takes from a call's Usage, in the record's names. */
export type RecordCounts = Pick<
  UsageRecord,
  | 'prompt_tokens'
  | 'completion_tokens'
  | 'reasoning_tokens'
  | 'total_tokens'
  | 'cache_read_tokens'
  | 'cache_write_tokens'
  | 'images'
  | 'image_size'
  | 'image_quality'
>;

/** The counts of a call's usage record: every record of a call (served, or a line of a batch) writes them alike. */
export const recordCounts = (usage: Usage): RecordCounts => ({
  prompt_tokens: usage.promptTokens,
  completion_tokens: usage.completionTokens,
  reasoning_tokens: usage.reasoningTokens,
  total_tokens: usage.totalTokens ?? usage.promptTokens + usage.completionTokens,
  cache_read_tokens: usage.cacheReadTokens,
  cache_write_tokens: usage.cacheWriteTokens,
  images: usage.images,
  image_size: usage.imageSize,
  image_quality: usage.imageQuality,
});

/** A count from an upstream's usage object: a non-negative number, else 0 (a field left out counts nothing). */
export const tokenCount = (value: unknown): number => (typeof value === 'number' && value >= 0 ? value : 0);

/** Rough tokens for text the upstream never counted for us: about four characters a token. */
export const estimateTokens = (chars: number): number => (chars > 0 ? Math.ceil(chars / 4) : 0);

/** The `size` and `quality` of an image request body, for its price per image; a field not given is left out. */
export function imageOptions(
  body: Readonly<Record<string, unknown>>,
): Pick<Usage, 'imageSize' | 'imageQuality'> {
  return {
    ...(typeof body.size === 'string' ? { imageSize: body.size } : {}),
    ...(typeof body.quality === 'string' ? { imageQuality: body.quality } : {}),
  };
}

export const NO_USAGE: Readonly<Usage> = Object.freeze({
  promptTokens: 0,
  completionTokens: 0,
  estimated: false,
});

/** Characters of text in the request's messages, for estimating prompt tokens the upstream never reported. */
export function promptChars(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let chars = 0;
  for (const m of messages as Record<string, unknown>[]) {
    if (typeof m.content === 'string') chars += m.content.length;
    else if (Array.isArray(m.content)) {
      for (const part of m.content as Record<string, unknown>[])
        if (typeof part.text === 'string') chars += part.text.length;
    }
  }
  return chars;
}
