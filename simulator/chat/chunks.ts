import type { StreamEvent } from '../sse-writer';
import type { CompletionMeta } from './completion';
import type { ChatDialect } from './dialect';
import type { ChoicePlan, FinishReason, ReplyPlan, ToolCallPlan } from './reply';
import type { ChatRequest } from './request';

type Delta = Record<string, unknown>;

function choice(d: ChatDialect, index: number, delta: Delta, finish: FinishReason | null): unknown {
  return d.logprobs
    ? { index, delta, logprobs: null, finish_reason: finish }
    : { index, delta, finish_reason: finish };
}

/** Whether the tool call's id/type/name ride on the role chunk (as OpenAI does) or wait for reasoning to end. */
const headerInRole = (c: ChoicePlan): boolean => c.reasoning.length === 0;

/** A tool call's first fragment: the only one that carries its id, type and name. */
function toolHeader(call: ToolCallPlan, args: string): unknown {
  return { index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: args } };
}

function roleDelta(c: ChoicePlan): Delta {
  if (!c.toolCall) return { role: 'assistant', content: '' };
  return headerInRole(c)
    ? { role: 'assistant', content: null, tool_calls: [toolHeader(c.toolCall, '')] }
    : { role: 'assistant', content: null };
}

function tokenDelta(c: ChoicePlan, step: number): Delta {
  if (step < c.reasoning.length) return { content: null, reasoning_content: c.reasoning[step] };
  const at = step - c.reasoning.length;
  if (c.toolCall) {
    const args = c.toolCall.argFragments[at] ?? '';
    const call =
      at === 0 && !headerInRole(c)
        ? toolHeader(c.toolCall, args)
        : { index: 0, function: { arguments: args } };
    return { tool_calls: [call] };
  }
  const text = c.content?.[at] ?? '';
  // Once a choice has thought, its content chunks say so explicitly, as DashScope's do.
  return c.reasoning.length > 0 ? { content: text, reasoning_content: null } : { content: text };
}

/**
 * The chunks of a streamed reply, in order: one role chunk per choice, content chunks with the
 * choices interleaved token by token, one finish chunk per choice, then usage where the dialect
 * puts it. Generated lazily: a paced stream serializes each chunk only when it is due, and a
 * cut stream never serializes the rest.
 */
export function* chatChunks(
  d: ChatDialect,
  req: ChatRequest,
  plan: ReplyPlan,
  meta: CompletionMeta,
): Generator<StreamEvent, void, undefined> {
  const placement = d.streamUsage(req);
  const base = {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: req.model,
    ...d.envelopeExtras,
  };
  const noUsage = placement.nullOnChunks ? null : undefined; // undefined drops the key
  const frame = (choices: unknown[], usage: unknown): string =>
    `data: ${JSON.stringify({ ...base, choices, usage })}\n\n`;

  for (const c of plan.choices) {
    yield { frame: frame([choice(d, c.index, roleDelta(c), null)], noUsage), step: null };
  }
  const longest = Math.max(0, ...plan.choices.map((c) => c.steps));
  for (let step = 0; step < longest; step++) {
    for (const c of plan.choices) {
      if (step >= c.steps) continue;
      yield { frame: frame([choice(d, c.index, tokenDelta(c, step), null)], noUsage), step };
    }
  }
  const last = plan.choices.length - 1;
  for (const c of plan.choices) {
    const usage = placement.onLastFinish && c.index === last ? d.usage(plan.usage, req) : noUsage;
    yield { frame: frame([choice(d, c.index, {}, c.finishReason)], usage), step: null };
  }
  if (placement.usageChunk) yield { frame: frame([], d.usage(plan.usage, req)), step: null };
}
