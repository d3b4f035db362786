/**
 * A vendor's prompt cache, as one simulator keeps it: the start of a conversation (its system prompt and
 * first user turn) that reaches the same simulator again within the window is read from the cache, and
 * each family reports those tokens the way its vendor does (`cached_tokens`, `cache_read_input_tokens`).
 * Kept per family and model, as the vendors keep theirs per deployment; each use renews the window. As
 * at OpenAI and Anthropic, a start shorter than 1,024 tokens is never cached, which also leaves the short
 * prompts of most tests uncached.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { isRecord } from './is-record';
import { tokensOf } from './token-count';

/** How long a start stays cached after its last use (OpenAI's and Anthropic's default: 5 minutes). */
export const PROMPT_CACHE_WINDOW_MS = 300_000;
/** The shortest start cached, in tokens (the vendors' floor). */
export const PROMPT_CACHE_MIN_TOKENS = 1_024;
/** Starts one simulator remembers at most; the least recently used go first. */
const MAX_STARTS = 10_000;

/** What opens a request's conversation: its text (what the cache matches) and its length. */
export interface ConversationStart {
  /** The system prompt and first user turn, serialised: equal starts have equal text. */
  readonly text: string;
  /** Characters of prompt text in it, for its token count. */
  readonly chars: number;
}

export interface PromptCacheOptions {
  /** Default {@link PROMPT_CACHE_WINDOW_MS}; a request's `prompt_cache_ms` control overrides it. */
  readonly windowMs?: number;
  /** Default {@link PROMPT_CACHE_MIN_TOKENS}. */
  readonly minTokens?: number;
  /** Epoch ms now (default `Date.now`). */
  readonly clock?: () => number;
}

/** The cache as `GET /_sim/prompt-cache` shows it. */
export interface PromptCacheView {
  readonly window_ms: number;
  readonly min_tokens: number;
  readonly starts: number;
}

export class PromptCache {
  readonly windowMs: number;
  readonly minTokens: number;
  private readonly clock: () => number;
  /** When each start (by scope and hash) was last used. */
  private readonly lastUsed = new LRUCache<string, number>({ max: MAX_STARTS });

  constructor(options: PromptCacheOptions = {}) {
    this.windowMs = options.windowMs ?? PROMPT_CACHE_WINDOW_MS;
    this.minTokens = options.minTokens ?? PROMPT_CACHE_MIN_TOKENS;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * The tokens of `start` read from the cache: all of them when it was used in `scope` (a family and
   * model) within `windowMs`, else 0. Either way it is cached, as of now, for the next request.
   */
  read(scope: string, start: ConversationStart | null, windowMs = this.windowMs): number {
    if (!start) return 0;
    const tokens = tokensOf(start.chars);
    if (tokens < this.minTokens) return 0;
    const key = `${scope}\n${createHash('sha256').update(start.text).digest('hex')}`;
    const now = this.clock();
    const last = this.lastUsed.get(key);
    this.lastUsed.set(key, now);
    return last !== undefined && now - last < windowMs ? tokens : 0;
  }

  /** Forgets every start; returns how many there were. */
  clear(): number {
    const n = this.lastUsed.size;
    this.lastUsed.clear();
    return n;
  }

  view(): PromptCacheView {
    return { window_ms: this.windowMs, min_tokens: this.minTokens, starts: this.lastUsed.size };
  }
}

/**
 * The start of a list of turns: the system (or developer) turns before the first user turn, and that
 * turn, each read to text by `textOf`; null when there is neither.
 */
export function startOfTurns(
  turns: readonly unknown[],
  textOf: (turn: Record<string, unknown>) => string,
  before: readonly string[] = [],
): ConversationStart | null {
  const texts = [...before];
  for (const turn of turns) {
    if (!isRecord(turn)) continue;
    const { role } = turn;
    if (role !== 'user' && role !== 'system' && role !== 'developer') continue;
    texts.push(textOf(turn));
    if (role === 'user') break;
  }
  if (texts.every((t) => t === '')) return null;
  return { text: JSON.stringify(texts), chars: texts.reduce((n, t) => n + t.length, 0) };
}
