/**
 * A Responses API request (`POST /v1/responses`) read into what the chat replies are planned from: the
 * same words, tool calls and usage arithmetic, so a model answers alike on either API. Instructions and
 * every item's text count as prompt; a call's output is a turn a model answers in words.
 */
import { isRecord } from '../is-record';
import { startOfTurns } from '../prompt-cache';
import { SimErrors } from '../sim-error';
import type { ChatRequest } from '../chat/request';

/** The API's floor for `max_output_tokens` ("integer below minimum value. Expected a value >= 16"). */
const MIN_OUTPUT_TOKENS = 16;

/** Text of a message's `content`, a call's arguments or a tool's output. */
function itemText(item: Record<string, unknown>): string {
  const content = item.content ?? item.output ?? item.arguments;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((part) => (isRecord(part) && typeof part.text === 'string' ? [part.text] : []))
    .join(' ');
}

function inputStats(input: unknown): { chars: number; lastUser: string; endsWithOutput: boolean } {
  if (typeof input === 'string') return { chars: input.length, lastUser: input, endsWithOutput: false };
  let chars = 0;
  let lastUser = '';
  const items = Array.isArray(input) ? input.filter(isRecord) : [];
  for (const item of items) {
    const text = itemText(item);
    chars += text.length;
    if (item.role === 'user') lastUser = text;
  }
  return { chars, lastUser, endsWithOutput: items.at(-1)?.type === 'function_call_output' };
}

/**
 * The function a reply calls: the one `tool_choice` names, else the first function tool; null for none.
 * Only function tools are called (a custom tool's call is an item of another type, not simulated).
 */
function toolName(body: Record<string, unknown>, endsWithOutput: boolean): string | null {
  const tools = (Array.isArray(body.tools) ? (body.tools as unknown[]) : []).filter(
    (tool): tool is Record<string, unknown> => isRecord(tool) && tool.type === 'function',
  );
  if (tools.length === 0 || body.tool_choice === 'none') return null;
  const chosen =
    isRecord(body.tool_choice) && typeof body.tool_choice.name === 'string' ? body.tool_choice.name : null;
  // Unless a function is forced, a model given a call's output answers with text, as real ones do.
  if (chosen) return chosen;
  if (endsWithOutput) return null;
  const name = tools[0]!.name;
  return typeof name === 'string' ? name : 'tool';
}

function readMaxTokens(body: Record<string, unknown>): number | undefined {
  const max = body.max_output_tokens;
  if (max == null) return undefined;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < MIN_OUTPUT_TOKENS) {
    throw SimErrors.invalidParam(
      'max_output_tokens',
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${JSON.stringify(max)} instead.`,
      'integer_below_min_value',
    );
  }
  return max;
}

/**
 * Validates a Responses body the way the vendor does at the front door.
 * @throws SimError 400 when the body is not an object, or `model`/`input` are missing.
 */
export function parseResponsesRequest(body: unknown): ChatRequest {
  if (!isRecord(body)) throw SimErrors.invalidParam('body', 'The request body must be a JSON object.');
  const { model, input } = body;
  if (typeof model !== 'string' || model === '') throw SimErrors.missingParam('model');
  if (input == null || input === '' || (Array.isArray(input) && input.length === 0)) {
    throw SimErrors.missingParam('input');
  }
  const stats = inputStats(input);
  const instructions = typeof body.instructions === 'string' ? body.instructions : '';
  // A string input is the first user turn; instructions come before any turn.
  const turns: unknown[] =
    typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  return {
    model,
    stream: body.stream === true,
    n: 1,
    maxTokens: readMaxTokens(body),
    includeUsage: false,
    toolName: toolName(body, stats.endsWithOutput),
    promptChars: instructions.length + stats.chars,
    lastUserText: stats.lastUser,
    start: startOfTurns(turns, itemText, [instructions]),
    body,
  };
}
