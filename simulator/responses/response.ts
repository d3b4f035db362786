/**
 * The Response object (`POST /v1/responses`) and its output items as OpenAI writes them, member for
 * member in the order of its recorded answers (test/kit/fixtures/responses/): the request's settings
 * echoed with the API's defaults, the output items, and `usage` with its details.
 */
import { isRecord } from '../is-record';
import { newCallId, newResponsesId } from '../ids';
import type { ChoicePlan, UsageTotals } from '../chat/reply';
import type { ChatRequest } from '../chat/request';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** Identity shared by a Response and every event of its stream, and its one output item's. */
export interface ResponseMeta {
  readonly id: string;
  readonly createdAt: number;
  readonly itemId: string;
  readonly callId: string;
}

export const newResponseMeta = (c: ChoicePlan, createdAt: number): ResponseMeta => ({
  id: newResponsesId('resp'),
  createdAt,
  itemId: newResponsesId(c.toolCall ? 'fc' : 'msg'),
  callId: c.toolCall?.id ?? newCallId(),
});

export const textPart = (text: string): Record<string, unknown> => ({
  type: 'output_text',
  annotations: [],
  logprobs: [],
  text,
});

/** The choice's one output item: a message, or the function call it makes; `text` is what was said so far. */
export function outputItem(
  c: ChoicePlan,
  meta: ResponseMeta,
  status: ItemStatus,
  text: string | null,
): Record<string, unknown> {
  if (c.toolCall) {
    const args = text ?? c.toolCall.argFragments.join('');
    return {
      id: meta.itemId,
      type: 'function_call',
      status,
      arguments: args,
      call_id: meta.callId,
      name: c.toolCall.name,
    };
  }
  const content = text === null ? [] : [textPart(text)];
  return { id: meta.itemId, type: 'message', status, content, role: 'assistant' };
}

export const responsesUsage = (u: UsageTotals): Record<string, unknown> => ({
  input_tokens: u.prompt,
  input_tokens_details: { cache_write_tokens: 0, cached_tokens: u.cached },
  output_tokens: u.completion,
  output_tokens_details: { reasoning_tokens: u.reasoning },
  total_tokens: u.prompt + u.completion,
});

const member = (value: unknown, key: string): unknown => (isRecord(value) ? value[key] : undefined);

/** Function tools as the API repeats them: every member present, `strict` on by default. */
const echoedTools = (tools: unknown): unknown[] =>
  (Array.isArray(tools) ? tools.filter(isRecord) : []).map((tool) =>
    tool.type === 'function'
      ? {
          type: 'function',
          description: tool.description ?? null,
          name: tool.name,
          output_schema: null,
          parameters: tool.parameters ?? null,
          strict: tool.strict ?? true,
        }
      : tool,
  );

/** What the Response says of itself at one moment of its life. */
export interface ResponseState {
  readonly status: ResponseStatus;
  readonly output: readonly unknown[];
  readonly usage: Record<string, unknown> | null;
  readonly error?: Record<string, unknown>;
}

export function responseBody(
  req: ChatRequest,
  meta: ResponseMeta,
  state: ResponseState,
): Record<string, unknown> {
  const b = req.body;
  const done = state.status === 'completed' || state.status === 'incomplete';
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    status: state.status,
    background: false,
    completed_at: state.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    error: state.error ?? null,
    frequency_penalty: 0,
    incomplete_details: state.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    max_tool_calls: b.max_tool_calls ?? null,
    model: req.model,
    moderation: null,
    output: state.output,
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    presence_penalty: 0,
    previous_response_id: null,
    prompt_cache_key: b.prompt_cache_key ?? null,
    prompt_cache_retention: b.prompt_cache_retention ?? 'in_memory',
    reasoning: {
      context: null,
      effort: member(b.reasoning, 'effort') ?? null,
      summary: member(b.reasoning, 'summary') ?? null,
    },
    safety_identifier: b.safety_identifier ?? null,
    // Asked `auto`, the API names the tier that served once it is done.
    service_tier: done ? 'default' : (b.service_tier ?? 'auto'),
    store: b.store ?? true,
    temperature: b.temperature ?? 1,
    text: {
      format: member(b.text, 'format') ?? { type: 'text' },
      verbosity: member(b.text, 'verbosity') ?? 'medium',
    },
    tool_choice: b.tool_choice ?? 'auto',
    tools: echoedTools(b.tools),
    top_logprobs: b.top_logprobs ?? 0,
    top_p: b.top_p ?? 1,
    truncation: b.truncation ?? 'disabled',
    usage: state.usage,
    user: b.user ?? null,
    metadata: b.metadata ?? {},
  };
}
