import { LOREM, MUSING, pieces, tokensOf, TOOL_ARG_FRAGMENTS, words } from '../reply-text';
import { textBlock, thinkingBlock, toolUseBlock, type BlockPlan } from './blocks';
import type { MessagesRequest } from './request';

/** Why a reply stopped. */
export type StopReason = 'end_turn' | 'max_tokens' | 'tool_use';

/** Token counts of a reply. */
export interface MessageUsage {
  /** Prompt tokens outside cached blocks. */
  readonly input: number;
  /** Prompt tokens inside blocks marked `cache_control`. */
  readonly cacheRead: number;
  /** Every piece of every block: thinking, text or tool input. */
  readonly output: number;
}

/** The complete, deterministic reply to a request, shared by the JSON and streaming paths. */
export interface MessagePlan {
  readonly blocks: readonly BlockPlan[];
  readonly stopReason: StopReason;
  readonly usage: MessageUsage;
}

/** Per-request inputs besides the request itself. */
export interface MessageOptions {
  /** Thinking tokens, and answer tokens, before `max_tokens` caps them. */
  readonly tokens: number;
  /** Text that replaces the answer (the `echo` control), or null. */
  readonly echoText: string | null;
  /** Tokens of the conversation's start the prompt cache gave (on a hit), else 0. */
  readonly cachedTokens: number;
}

/** The block after any thinking, and why the reply stopped there. */
interface Answer {
  /** Null when thinking used up `max_tokens` before the answer began. */
  readonly block: BlockPlan | null;
  readonly stopReason: StopReason;
}

/** Thinking tokens: as many as the answer's, within `budget_tokens` and `max_tokens`. */
const thinkingTokens = (req: MessagesRequest, tokens: number): number =>
  Math.min(tokens, req.thinkingBudget ?? tokens, req.maxTokens);

/**
 * The answer: an echo (never capped, so it always parses), else the tool call (whole, like the
 * chat families'), else words cut to the `room` that `max_tokens` leaves after thinking.
 */
function answer(req: MessagesRequest, opts: MessageOptions, room: number): Answer {
  if (opts.echoText !== null) return { block: textBlock(pieces(opts.echoText)), stopReason: 'end_turn' };
  if (req.toolName !== null) {
    return { block: toolUseBlock(req.toolName, TOOL_ARG_FRAGMENTS), stopReason: 'tool_use' };
  }
  const count = Math.min(opts.tokens, room);
  const truncated = count < opts.tokens;
  return {
    block: count > 0 || !truncated ? textBlock(words(LOREM, count, 0)) : null,
    stopReason: truncated ? 'max_tokens' : 'end_turn',
  };
}

/**
 * Plans the content blocks (thinking when asked for, then the answer) and the usage arithmetic:
 * input tokens are ceil(characters / 4), at least 1, with the text of cache-marked blocks counted
 * as cache reads instead (or, with none marked, a start the prompt cache held: as the vendor does,
 * `input_tokens` leaves out what was read from the cache); output tokens are every piece generated.
 */
export function planMessage(req: MessagesRequest, opts: MessageOptions): MessagePlan {
  const thinking = req.thinks ? words(MUSING, thinkingTokens(req, opts.tokens), 0) : [];
  const { block, stopReason } = answer(req, opts, req.maxTokens - thinking.length);
  const blocks: BlockPlan[] = req.thinks ? [thinkingBlock(thinking)] : [];
  if (block) blocks.push(block);
  const output = blocks.reduce((sum, b) => sum + b.pieces.length, 0);
  const input = Math.max(1, tokensOf(req.prompt.plainChars));
  const marked = tokensOf(req.prompt.cachedChars);
  // Blocks marked `cache_control` decide what is read from the cache; unmarked, a cached start is.
  const fromStart = marked > 0 ? 0 : Math.min(opts.cachedTokens, input);
  const usage: MessageUsage = { input: input - fromStart, cacheRead: marked + fromStart, output };
  return { blocks, stopReason, usage };
}
