/**
 * What opens a conversation, as each API's `conversationStart` reads it: the system (or developer)
 * turns before the first user turn, and that turn. Later turns are left out, so every call of one
 * conversation opens the same way, however long it has grown.
 */
import { isJsonObject } from '../../core/kit/json';

const SYSTEM_ROLES: ReadonlySet<unknown> = new Set(['system', 'developer']);

/**
 * The content of the system turns of `turns` before its first user turn, and that turn's content
 * (null when there is none); undefined when there is neither.
 */
export function openingTurns(turns: unknown): { system: unknown[]; firstUser: unknown } | undefined {
  if (!Array.isArray(turns)) return undefined;
  const system: unknown[] = [];
  for (const turn of turns) {
    if (!isJsonObject(turn)) continue;
    if (turn.role === 'user') return { system, firstUser: turn.content ?? null };
    if (SYSTEM_ROLES.has(turn.role)) system.push(turn.content ?? null);
  }
  return system.length > 0 ? { system, firstUser: null } : undefined;
}
