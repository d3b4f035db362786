import type { ChatDialect } from './dialect';
import type { ChoicePlan, ReplyPlan } from './reply';
import type { ChatRequest } from './request';

/** Identity shared by a completion and every chunk of its stream. */
export interface CompletionMeta {
  readonly id: string;
  readonly created: number;
}

/** The `message.tool_calls` entry of a non-streamed tool call. */
function toolCalls(c: ChoicePlan): unknown[] | undefined {
  if (!c.toolCall) return undefined;
  const { id, name, argFragments } = c.toolCall;
  return [{ id, type: 'function', function: { name, arguments: argFragments.join('') } }];
}

function message(d: ChatDialect, c: ChoicePlan): Record<string, unknown> {
  const msg: Record<string, unknown> = {
    role: 'assistant',
    content: c.content === null ? null : c.content.join(''),
    ...d.messageExtras,
  };
  if (c.reasoning.length > 0) msg.reasoning_content = c.reasoning.join('');
  const calls = toolCalls(c);
  if (calls) msg.tool_calls = calls;
  return msg;
}

/** The non-streamed `chat.completion` body in the dialect's shape. */
export function completionBody(
  d: ChatDialect,
  req: ChatRequest,
  plan: ReplyPlan,
  meta: CompletionMeta,
): Record<string, unknown> {
  const choices = plan.choices.map((c) => {
    const choice: Record<string, unknown> = { index: c.index, message: message(d, c) };
    if (d.logprobs) choice.logprobs = null;
    choice.finish_reason = c.finishReason;
    return choice;
  });
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: req.model,
    choices,
    usage: d.usage(plan.usage, req),
    ...d.envelopeExtras,
  };
}
