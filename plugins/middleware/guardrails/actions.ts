/** Telling what a guardrail did: the call's record (GatewayContext.guardrail), once, and the counter. */
import type { GatewayContext, GuardrailAction } from '../../../core/kit/plugin';
import type { PluginMetrics } from '../../../core/kit/tokens';

export type RecordAction = (ctx: GatewayContext, done: GuardrailAction) => void;

export function recorder(metrics: PluginMetrics): RecordAction {
  const counter = metrics.counter({
    name: 'gateway_guardrail_actions_total',
    help: 'What guardrails did to calls: blocked, masked, logged, or could not check (error), by guardrail and phase.',
    labelNames: ['guardrail', 'action', 'phase'],
  });
  return (ctx, done) => {
    // A call counts once per guardrail, action and phase, as its record holds it.
    if (ctx.guardrail(done)) counter.inc({ guardrail: done.name, action: done.action, phase: done.phase });
  };
}
