import { newCallId } from '../ids';
import { LOREM, MUSING, pieces, tokensOf, TOOL_ARG_FRAGMENTS, words } from '../reply-text';
import type { ChatRequest } from './request';

/** Why a choice stopped. */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** A function call a choice makes, with its arguments pre-split into streamed fragments. */
export interface ToolCallPlan {
  readonly id: string;
  readonly name: string;
  readonly argFragments: readonly string[];
}

/** What one choice says; each string in `reasoning`, `content` or `argFragments` is one token. */
export interface ChoicePlan {
  readonly index: number;
  readonly reasoning: readonly string[];
  /** Text pieces, or null when the choice is a tool call. */
  readonly content: readonly string[] | null;
  readonly toolCall: ToolCallPlan | null;
  readonly finishReason: FinishReason;
  /** Token pieces in order (reasoning, then content or arguments): one content chunk each. */
  readonly steps: number;
}

/** Token counts of a whole reply, summed over choices. */
export interface UsageTotals {
  readonly prompt: number;
  /** Of `prompt`, those read from the prompt cache. */
  readonly cached: number;
  readonly completion: number;
  readonly reasoning: number;
}

/** The complete, deterministic reply to a request, shared by the JSON and streaming paths. */
export interface ReplyPlan {
  readonly choices: readonly ChoicePlan[];
  readonly usage: UsageTotals;
}

/** Per-request inputs besides the request itself. */
export interface ReplyOptions {
  /** Content tokens per choice before `max_tokens` caps them. */
  readonly tokens: number;
  /** Reasoning tokens per choice (0 when the dialect does not think). */
  readonly reasoningTokens: number;
  /** Text that replaces the generated words (the `echo` control), or null. */
  readonly echoText: string | null;
  /** Prompt tokens the prompt cache gave (the conversation's start, on a hit), else 0. */
  readonly cachedTokens: number;
}

function choicePlan(req: ChatRequest, opts: ReplyOptions, echo: string[] | null, index: number): ChoicePlan {
  const reasoning = words(MUSING, opts.reasoningTokens, index);
  if (echo === null && req.toolName !== null) {
    const toolCall = { id: newCallId(), name: req.toolName, argFragments: TOOL_ARG_FRAGMENTS };
    const steps = reasoning.length + TOOL_ARG_FRAGMENTS.length;
    return { index, reasoning, content: null, toolCall, finishReason: 'tool_calls', steps };
  }
  const capped = echo === null && req.maxTokens !== undefined && req.maxTokens < opts.tokens;
  const content = echo ?? words(LOREM, Math.min(opts.tokens, req.maxTokens ?? opts.tokens), index);
  const finishReason = capped ? 'length' : 'stop';
  return {
    index,
    reasoning,
    content,
    toolCall: null,
    finishReason,
    steps: reasoning.length + content.length,
  };
}

/**
 * Plans every choice and the usage arithmetic: `completion` is the sum of the choices' tokens,
 * `prompt` is ceil(prompt characters / 4), at least 1, of which `cached` came from the prompt cache. An echo is never capped by `max_tokens`,
 * so it always parses; it takes the place of both words and tool calls.
 */
export function planReply(req: ChatRequest, opts: ReplyOptions): ReplyPlan {
  const echo = opts.echoText === null ? null : pieces(opts.echoText);
  const choices = Array.from({ length: req.n }, (_, i) => choicePlan(req, opts, echo, i));
  const completion = choices.reduce((sum, c) => sum + c.steps, 0);
  const reasoning = choices.reduce((sum, c) => sum + c.reasoning.length, 0);
  const prompt = Math.max(1, tokensOf(req.promptChars));
  return { choices, usage: { prompt, cached: Math.min(opts.cachedTokens, prompt), completion, reasoning } };
}
