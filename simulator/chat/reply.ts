import { newCallId } from '../ids';
import type { ChatRequest } from './request';

/** Completion tokens per choice when no `tokens` control is given. */
export const DEFAULT_TOKENS = 12;

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
}

const LOREM = ['Lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do'];
const MUSING = ['Let', 'me', 'think', 'this', 'through', 'step', 'by', 'step', 'first'];
// Split exactly as a vendor streams `{"city":"Paris"}`.
const TOOL_ARG_FRAGMENTS = ['{"', 'city', '":"', 'Paris', '"}'] as const;
// The prompt-token heuristic: about four characters per token.
const CHARS_PER_TOKEN = 4;

/** Deterministic words, one per token; `offset` makes each choice read differently. */
function words(list: readonly string[], count: number, offset: number): string[] {
  const out = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    const word = list[(i + offset) % list.length] ?? '';
    out[i] = i === 0 ? word : ` ${word}`;
  }
  return out;
}

/** Cuts text into token-sized pieces without separating a surrogate pair. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + CHARS_PER_TOKEN, text.length);
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
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
 * `prompt` is ceil(prompt characters / 4), at least 1. An echo is never capped by `max_tokens`,
 * so it always parses; it takes the place of both words and tool calls.
 */
export function planReply(req: ChatRequest, opts: ReplyOptions): ReplyPlan {
  const echo = opts.echoText === null ? null : pieces(opts.echoText);
  const choices = Array.from({ length: req.n }, (_, i) => choicePlan(req, opts, echo, i));
  const completion = choices.reduce((sum, c) => sum + c.steps, 0);
  const reasoning = choices.reduce((sum, c) => sum + c.reasoning.length, 0);
  const prompt = Math.max(1, Math.ceil(req.promptChars / CHARS_PER_TOKEN));
  return { choices, usage: { prompt, completion, reasoning } };
}
