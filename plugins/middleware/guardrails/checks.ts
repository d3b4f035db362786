/**
 * The rules and webhooks over a body's texts. A request's block is a 400 `content_filter` naming the
 * guardrail; an answer's withholds the text from the match on (AnswerPart.cut). Masks change the texts
 * in place; the caller writes the body back when one did.
 */
import { Errors, type GatewayContext } from '../../../core/kit/plugin';
import type { RecordAction } from './actions';
import type { AnswerPart } from './texts/answer-shapes';
import { inspect } from './decide';
import type { Phase, WebhookOptions } from './options';
import type { Rule, Scoped } from './rules';
import type { TextSlot } from './texts/text-paths';
import { askWebhook } from './webhook';

export const blockedBy = (name: string, reason?: string): string =>
  `the request was blocked by guardrail '${name}'${reason ? `: ${reason}` : ''}`;

/** Tells what each rule of `acted` did (a block is told where it is acted on). */
function told(record: RecordAction, ctx: GatewayContext, acted: readonly Rule[], phase: Phase): void {
  for (const rule of acted) record(ctx, { name: rule.name, action: rule.action, phase });
}

/** The rules over a request's texts: masks in place; a block throws. Whether a text changed. */
export function ruleRequest(
  ctx: GatewayContext,
  slots: readonly TextSlot[],
  rules: readonly Rule[],
  record: RecordAction,
): boolean {
  let changed = false;
  for (const slot of slots) {
    const decision = inspect(slot.text, rules);
    told(record, ctx, decision.acted, 'request');
    if (decision.blocked) throw Errors.contentFilter(blockedBy(decision.blocked.name));
    if (decision.out !== slot.text) {
      slot.set(decision.out);
      changed = true;
    }
  }
  return changed;
}

/** The rules over an answer's texts: masks in place, a block cuts its part. Whether anything changed. */
export function ruleAnswer(
  ctx: GatewayContext,
  parts: readonly AnswerPart[],
  rules: readonly Rule[],
  record: RecordAction,
): boolean {
  let changed = false;
  for (const part of parts)
    for (const [i, slot] of part.texts.entries()) {
      const decision = inspect(slot.text, rules);
      told(record, ctx, decision.acted, 'response');
      if (decision.blocked) {
        part.cut(i, decision.out);
        changed = true;
        break;
      }
      if (decision.out !== slot.text) {
        slot.set(decision.out);
        changed = true;
      }
    }
  return changed;
}

/** Whether any rule would act on (block, mask or log) any of `texts`. */
export const actOnAny = (texts: readonly string[], rules: readonly Rule[]): boolean =>
  texts.some((text) => inspect(text, rules).acted.length > 0);

/** What the webhooks decided: a block (with the webhook's reason), or whether they masked anything. */
export type HookOutcome =
  { readonly blocked: string } | { readonly blocked: undefined; readonly changed: boolean };

/** Asks each webhook in turn, with the texts as the ones before it left them. */
export async function consult(
  ctx: GatewayContext,
  hooks: readonly Scoped<WebhookOptions>[],
  phase: Phase,
  slots: readonly TextSlot[],
  record: RecordAction,
): Promise<HookOutcome> {
  let changed = false;
  for (const hook of hooks) {
    const verdict = await askWebhook(
      hook,
      ctx,
      phase,
      slots.map((s) => s.text),
    );
    const { name } = hook;
    if (verdict.action === 'failed') {
      record(ctx, { name, action: 'error', phase });
      if (hook.on_error === 'block') throw Errors.guardrailUnavailable(name);
      continue;
    }
    if (verdict.action === 'block') {
      record(ctx, { name, action: 'block', phase });
      return { blocked: blockedBy(name, verdict.reason) };
    }
    if (verdict.action === 'mask') {
      record(ctx, { name, action: 'mask', phase });
      verdict.texts.forEach((text, i) => slots[i]!.set(text));
      changed = true;
    }
  }
  return { blocked: undefined, changed };
}
