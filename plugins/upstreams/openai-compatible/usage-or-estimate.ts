import { type DeferredCount, estimateTokens } from '../../../core/kit/upstream';
import type { Usage } from '../../../core/kit/plugin';

/**
 * The usage the upstream reported, or, where it never came (a stream cut before its end), an estimate
 * marked so: the prompt's tokens and the tokens of the text delivered.
 */
export const usageOrEstimate = (
  reported: Usage | undefined,
  promptTokens: () => number,
  delivered: DeferredCount,
): Usage =>
  reported ?? {
    promptTokens: promptTokens(),
    completionTokens: estimateTokens(delivered.total()),
    estimated: true,
  };
