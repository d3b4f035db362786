/** Token counts of one call, as the upstream reported them or as estimated from what was delivered. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** True when any count is an estimate (the upstream's own figures never arrived). */
  estimated: boolean;
}

/** Rough tokens for text the upstream never counted for us: about four characters a token. */
export const estimateTokens = (chars: number): number => (chars > 0 ? Math.ceil(chars / 4) : 0);

export const NO_USAGE: Readonly<Usage> = Object.freeze({
  promptTokens: 0,
  completionTokens: 0,
  estimated: false,
});
