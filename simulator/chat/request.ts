import { isRecord } from '../is-record';
import { startOfTurns, type ConversationStart } from '../prompt-cache';
import { SimErrors } from '../sim-error';

/** The fields of a chat-completions request the simulator acts on. */
export interface ChatRequest {
  readonly model: string;
  readonly stream: boolean;
  /** Choices to generate (`n`, default 1). */
  readonly n: number;
  /** The tighter of `max_tokens` and `max_completion_tokens`, if either is given. */
  readonly maxTokens: number | undefined;
  /** `stream_options.include_usage`. */
  readonly includeUsage: boolean;
  /** Name of the function the reply calls, or null when the reply is text. */
  readonly toolName: string | null;
  /** Characters of text over all messages, for `prompt_tokens`. */
  readonly promptChars: number;
  /** Text of the last user message, where `#sim` directives live. */
  readonly lastUserText: string;
  /** What opens the conversation, for the prompt cache; null when it has no system or user text. */
  readonly start: ConversationStart | null;
  /** The whole body, for dialect-specific fields such as `enable_thinking`. */
  readonly body: Readonly<Record<string, unknown>>;
}

// OpenAI's documented ceiling for `n`.
const MAX_N = 128;

/** Text of a message's `content`: a string, or the `text` of its parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (isRecord(part) && typeof part.text === 'string') text += text === '' ? part.text : ` ${part.text}`;
  }
  return text;
}

function promptStats(messages: readonly unknown[]): { chars: number; lastUser: string } {
  let chars = 0;
  let lastUser = '';
  for (const m of messages) {
    if (!isRecord(m)) continue;
    const text = contentText(m.content);
    chars += text.length;
    if (m.role === 'user') lastUser = text;
  }
  return { chars, lastUser };
}

function readN(body: Record<string, unknown>): number {
  if (body.n == null) return 1;
  const n = body.n;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_N) {
    throw SimErrors.invalidParam('n', `Invalid 'n': expected an integer from 1 to ${MAX_N}.`);
  }
  return n;
}

function readMaxTokens(body: Record<string, unknown>): number | undefined {
  const caps = [body.max_tokens, body.max_completion_tokens].filter(
    (v): v is number => typeof v === 'number' && v >= 0,
  );
  return caps.length === 0 ? undefined : Math.floor(Math.min(...caps));
}

/** The function a reply calls: the one `tool_choice` names, else the first tool; null when none. */
/** Whether the conversation's last turn is a tool's result, which a model answers in words. */
function endsWithToolResult(body: Record<string, unknown>): boolean {
  const last: unknown = Array.isArray(body.messages) ? body.messages.at(-1) : undefined;
  return isRecord(last) && last.role === 'tool';
}

function readToolName(body: Record<string, unknown>): string | null {
  const tools = body.tools;
  if (!Array.isArray(tools) || tools.length === 0 || body.tool_choice === 'none') return null;
  const chosen =
    isRecord(body.tool_choice) && isRecord(body.tool_choice.function) ? body.tool_choice.function : null;
  // Unless a function is forced, a model given a tool's result answers with text, as real ones do.
  if (!chosen && endsWithToolResult(body)) return null;
  const first: unknown = tools[0];
  const fn = chosen ?? (isRecord(first) && isRecord(first.function) ? first.function : first);
  return isRecord(fn) && typeof fn.name === 'string' ? fn.name : 'tool';
}

/**
 * Validates a chat-completions body the way the vendors do at the front door.
 * @throws SimError 400 when the body is not an object, or `model`/`messages` are missing.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  if (!isRecord(body)) throw SimErrors.invalidParam('body', 'The request body must be a JSON object.');
  const { model, messages } = body;
  if (typeof model !== 'string' || model === '') throw SimErrors.missingParam('model');
  if (!Array.isArray(messages) || messages.length === 0) throw SimErrors.missingParam('messages');
  const stats = promptStats(messages);
  const streamOptions = body.stream_options;
  return {
    model,
    stream: body.stream === true,
    n: readN(body),
    maxTokens: readMaxTokens(body),
    includeUsage: isRecord(streamOptions) && streamOptions.include_usage === true,
    toolName: readToolName(body),
    promptChars: stats.chars,
    lastUserText: stats.lastUser,
    start: startOfTurns(messages, (m) => contentText(m.content)),
    body,
  };
}
