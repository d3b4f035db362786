import type { MessagePlan, StopReason } from './reply';

// message_start reports a small output count before any token exists, as the vendor does.
const STARTING_OUTPUT_TOKENS = 1;

/** The vendor's `usage` object with the given output count. */
function usage(plan: MessagePlan, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: plan.usage.input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: plan.usage.cacheRead,
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function message(
  id: string,
  model: string,
  content: readonly unknown[],
  stopReason: StopReason | null,
  usageBody: Record<string, unknown>,
): Record<string, unknown> {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: usageBody,
  };
}

/** The complete JSON reply. */
export const messageBody = (id: string, model: string, plan: MessagePlan): Record<string, unknown> =>
  message(
    id,
    model,
    plan.blocks.map((b) => b.whole),
    plan.stopReason,
    usage(plan, plan.usage.output),
  );

/** The `message` of `message_start`: no content and no stop reason yet, input counts already final. */
export const startedMessage = (id: string, model: string, plan: MessagePlan): Record<string, unknown> =>
  message(id, model, [], null, usage(plan, STARTING_OUTPUT_TOKENS));
