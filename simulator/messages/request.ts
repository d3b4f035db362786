import { isRecord } from '../is-record';
import { SimErrors, type SimError } from '../sim-error';
import { promptText, type PromptText } from './prompt';

/** The fields of a Messages request the simulator acts on. */
export interface MessagesRequest {
  readonly model: string;
  readonly maxTokens: number;
  readonly stream: boolean;
  /** `thinking.type` asks for a thinking block (`enabled` or `adaptive`). */
  readonly thinks: boolean;
  /** `thinking.budget_tokens`, when given. */
  readonly thinkingBudget: number | undefined;
  /** Name of the tool the reply uses, or null when the reply is text. */
  readonly toolName: string | null;
  readonly prompt: PromptText;
}

/** A required field and what its value must be. */
interface FieldRule<T> {
  readonly key: string;
  /** Completes "Input should be …". */
  readonly expected: string;
  valid(value: unknown): value is T;
}

const rule = <T>(key: string, expected: string, valid: (v: unknown) => v is T): FieldRule<T> => ({
  key,
  expected,
  valid,
});

// The vendor's front-door checks; everything else it accepts is accepted here too.
const MODEL = rule('model', 'a non-empty string', (v): v is string => typeof v === 'string' && v !== '');
const MAX_TOKENS = rule(
  'max_tokens',
  'a positive integer',
  (v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1,
);
const MESSAGES = rule(
  'messages',
  'a non-empty list of messages',
  (v): v is unknown[] => Array.isArray(v) && v.length > 0,
);
const isBlock = (b: unknown): boolean => isRecord(b) && typeof b.type === 'string';
const MESSAGE_RULES: readonly FieldRule<unknown>[] = [
  rule('role', "'user' or 'assistant'", (v): v is 'user' | 'assistant' => v === 'user' || v === 'assistant'),
  rule(
    'content',
    'a string or a list of content blocks',
    (v): v is string | unknown[] => typeof v === 'string' || (Array.isArray(v) && v.every(isBlock)),
  ),
];
const THINKING_TYPES: ReadonlySet<unknown> = new Set(['enabled', 'adaptive']);

const invalid = (param: string, why: string): SimError => SimErrors.invalidParam(param, `${param}: ${why}`);

/** The value of a required field, named from `prefix` (`messages.0.`) in the vendor's style. */
function take<T>(record: Record<string, unknown>, r: FieldRule<T>, prefix: string): T {
  const value = record[r.key];
  const param = prefix + r.key;
  if (value === undefined) throw invalid(param, 'Field required');
  if (!r.valid(value)) throw invalid(param, `Input should be ${r.expected}`);
  return value;
}

function checkMessages(messages: readonly unknown[]): Record<string, unknown>[] {
  return messages.map((m, i) => {
    if (!isRecord(m)) throw invalid(`messages.${i}`, 'Input should be an object with role and content');
    for (const r of MESSAGE_RULES) take(m, r, `messages.${i}.`);
    return m;
  });
}

/** Whether the conversation's last turn is a user's holding a tool's result, which a model answers in words. */
function endsWithToolResult(messages: readonly Record<string, unknown>[]): boolean {
  const last = messages.at(-1);
  return (
    last?.role === 'user' &&
    Array.isArray(last.content) &&
    last.content.some((b) => isRecord(b) && b.type === 'tool_result')
  );
}

/**
 * The tool a reply uses: the one `tool_choice` names, else the first; null without tools or with `none`,
 * and, unless a tool is forced, after a tool's result, as real models answer it in words.
 */
function readToolName(
  body: Record<string, unknown>,
  messages: readonly Record<string, unknown>[],
): string | null {
  const { tools, tool_choice: choice } = body;
  if (!Array.isArray(tools) || tools.length === 0) return null;
  if (isRecord(choice) && choice.type === 'none') return null;
  if (isRecord(choice) && choice.type === 'tool' && typeof choice.name === 'string') return choice.name;
  if (endsWithToolResult(messages)) return null;
  const first: unknown = tools[0];
  return isRecord(first) && typeof first.name === 'string' ? first.name : 'tool';
}

/** `budget_tokens`; the vendor's floor of 1024 is not enforced, so small budgets stay testable. */
function readBudget(thinking: Record<string, unknown>): number | undefined {
  const budget = thinking.budget_tokens;
  return typeof budget === 'number' && budget >= 0 ? Math.floor(budget) : undefined;
}

/**
 * Validates a Messages body the way the vendor does at the front door.
 * @throws SimError 400 naming the field at fault, e.g. `messages.0.role: …`.
 */
export function parseMessagesRequest(body: unknown): MessagesRequest {
  if (!isRecord(body)) throw SimErrors.invalidParam('body', 'The request body must be a JSON object.');
  const model = take(body, MODEL, '');
  const maxTokens = take(body, MAX_TOKENS, '');
  const messages = checkMessages(take(body, MESSAGES, ''));
  const thinking = isRecord(body.thinking) ? body.thinking : {};
  return {
    model,
    maxTokens,
    stream: body.stream === true,
    thinks: THINKING_TYPES.has(thinking.type),
    thinkingBudget: readBudget(thinking),
    toolName: readToolName(body, messages),
    prompt: promptText(body.system, messages),
  };
}
