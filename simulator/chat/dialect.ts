import type { SimError } from '../sim-error';
import type { UsageTotals } from './reply';
import type { ChatRequest } from './request';

/** Where a stream puts usage; a dialect answers this per request. */
export interface StreamUsagePlacement {
  /** Chunks without totals carry `"usage": null`; when false the key is left out. */
  readonly nullOnChunks: boolean;
  /** A final `choices: []` chunk carries the totals. */
  readonly usageChunk: boolean;
  /** The last finish chunk carries the totals. */
  readonly onLastFinish: boolean;
}

/**
 * What differs between the OpenAI-like chat families. The shared chat code reads these fields
 * and never tests a family's name; a new dialect is one object of this type.
 */
export interface ChatDialect {
  readonly name: string;
  /** First path segment, e.g. `/modela`. */
  readonly mount: string;
  /** Path of the chat route below the mount, e.g. `/v1/chat/completions`. */
  readonly chatPath: string;
  readonly defaultKey: string;
  readonly requestIdHeader: string;
  /** Extra top-level fields of completions and chunks, e.g. `system_fingerprint`. */
  readonly envelopeExtras: Readonly<Record<string, unknown>>;
  /** Extra fields of a non-streamed `message`, e.g. `refusal`. */
  readonly messageExtras: Readonly<Record<string, unknown>>;
  /** Whether each choice carries `logprobs: null`. */
  readonly logprobs: boolean;
  /** The vendor's error body. */
  errorBody(err: SimError, simId: string): unknown;
  /** The vendor's `usage` object for the reply to `req`. */
  usage(totals: UsageTotals, req: ChatRequest): Record<string, unknown>;
  streamUsage(req: ChatRequest): StreamUsagePlacement;
  /** Reasoning tokens per choice; 0 when the request does not ask the dialect to think. */
  reasoningTokens(req: ChatRequest, tokens: number): number;
  /** Vendor-specific refusals after the common checks; throws SimError. */
  validate(req: ChatRequest): void;
}
