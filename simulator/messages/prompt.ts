import { isRecord } from '../is-record';
import { startOfTurns, type ConversationStart } from '../prompt-cache';

/** The prompt text of a Messages request, as usage and controls need it. */
export interface PromptText {
  /** Characters outside cached blocks, for `input_tokens`. */
  readonly plainChars: number;
  /** Characters inside blocks that carry `cache_control`, for `cache_read_input_tokens`. */
  readonly cachedChars: number;
  /** Text of the last user message, where `#sim` directives live. */
  readonly lastUserText: string;
  /** `system` and the first user message, for the prompt cache; null when both are empty. */
  readonly start: ConversationStart | null;
}

interface Tally {
  plain: number;
  cached: number;
}

/** All text a block holds: its `text`, and the nested `content` of a tool result. */
function blockText(block: Record<string, unknown>): string {
  const own = typeof block.text === 'string' ? block.text : '';
  return own + nestedText(block.content);
}

function nestedText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isRecord(b) ? blockText(b) : '')).join('');
}

/**
 * Adds a `system` or `content` value to the tally. A block with `cache_control` counts as read
 * from the cache: the simulator treats every marked block as a cache hit, whatever came before.
 */
function count(content: unknown, into: Tally): void {
  if (typeof content === 'string') {
    into.plain += content.length;
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!isRecord(block)) continue;
    const chars = blockText(block).length;
    if (block.cache_control != null) into.cached += chars;
    else into.plain += chars;
  }
}

/** Text a user typed: string content, or the `text` of its blocks joined by spaces. */
function typedText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const block of content) if (isRecord(block) && typeof block.text === 'string') texts.push(block.text);
  return texts.join(' ');
}

/** Tallies `system` and every message; `messages` is already validated. */
export function promptText(system: unknown, messages: readonly Record<string, unknown>[]): PromptText {
  const tally: Tally = { plain: 0, cached: 0 };
  count(system, tally);
  let lastUser: Record<string, unknown> | undefined;
  for (const m of messages) {
    count(m.content, tally);
    if (m.role === 'user') lastUser = m;
  }
  return {
    plainChars: tally.plain,
    cachedChars: tally.cached,
    lastUserText: typedText(lastUser?.content),
    start: startOfTurns(messages, (m) => nestedText(m.content), [nestedText(system)]),
  };
}
