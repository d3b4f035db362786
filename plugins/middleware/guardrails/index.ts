/**
 * Guardrails: rules (patterns and PII detectors) and policy webhooks over what the client sends and what
 * the model answers, streams included. A request a rule blocks gets 400 `content_filter` naming it and
 * never reaches the upstream; a mask sends placeholders instead (`[EMAIL]`). An answer a rule blocks is
 * withheld from the match on and states the filter in its API's words (chat `finish_reason:
 * content_filter`, messages `stop_reason: refusal`, responses `status: incomplete`); a stream holds back
 * only text a match could still reach into, so no character of a blocked or masked match goes out.
 * Every action is recorded on the call (usage record, access line, span event) and counted in
 * `gateway_guardrail_actions_total`; the matched text never is.
 * @example
 * - guardrails:
 *     rules:
 *       - { name: no-injection, on: request, pattern: 'ignore (all )?previous instructions', flags: i, action: block }
 *       - { name: pii, on: both, pii: [email, phone, credit_card, iban, ip_address, secret], action: mask }
 */
import { inject } from 'tsyringe';
import { definePlugin, Errors, type GatewayContext, GatewayError, StateKey } from '../../../core/kit/plugin';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import {
  type EventFilter,
  type JsonAnswer,
  type Middleware,
  type Next,
  type StreamControl,
} from '../../../core/kit/stage';
import { type PluginMetrics, PluginMetricsToken } from '../../../core/kit/tokens';
import { recorder, type RecordAction } from './actions';
import { ANSWER_SHAPES, type AnswerPart, type AnswerShape } from './texts/answer-shapes';
import { actOnAny, consult, type HookOutcome, ruleAnswer, ruleRequest } from './checks';
import { guardrailsOptions, type GuardrailsOptions, type WebhookOptions } from './options';
import { REQUEST_TEXTS } from './texts/request-texts';
import { applying, compileRules, type Rule, scopeWebhook, type Scoped } from './rules';
import { StreamGuard } from './stream/stream-guard';
import { streamShape } from './stream/shapes';
import { textsAt } from './texts/text-paths';

export { guardrailsOptions };

/** What guards this call's answer, found as its request passed. */
interface AnswerGuard {
  readonly rules: readonly Rule[];
  readonly hooks: readonly Scoped<WebhookOptions>[];
  /** A chat stream's client asked for the usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
}

const ANSWER = new StateKey<AnswerGuard>('guardrails', 'answer');

@definePlugin({
  kind: 'middleware',
  name: 'guardrails',
  options: guardrailsOptions,
  after: { auth: 'a key or team opts in to rules by name' },
  requires: { 'model-router': 'rules are narrowed to models, and read the API the client called' },
})
export class GuardrailsMiddleware implements Middleware {
  private readonly rules: readonly Scoped<Rule>[];
  private readonly hooks: readonly Scoped<WebhookOptions>[];
  private readonly record: RecordAction;

  constructor(
    private readonly options: GuardrailsOptions,
    @inject(PluginMetricsToken) metrics: PluginMetrics,
  ) {
    this.rules = compileRules(options);
    this.hooks = options.webhooks.map(scopeWebhook);
    this.record = recorder(metrics);
  }

  handle(ctx: GatewayContext, next: Next): Promise<void> {
    const paths = REQUEST_TEXTS[ctx.endpoint.id];
    if (!paths) return next(); // an API without texts (a task's status, the model list)
    const rules = applying(this.rules, ctx, 'request');
    const hooks = applying(this.hooks, ctx, 'request');
    const answer = this.answerGuard(ctx);
    if (!rules.length && !hooks.length && !answer) return next();
    return this.guardRequest(ctx, next, rules, hooks, answer);
  }

  /** Checks the request's texts, keeps the answer's guard, and awaits `next` (Middleware.handle). */
  private async guardRequest(
    ctx: GatewayContext,
    next: Next,
    rules: readonly Rule[],
    hooks: readonly Scoped<WebhookOptions>[],
    answer: Omit<AnswerGuard, 'includeUsage'> | undefined,
  ): Promise<void> {
    const body = await ctx.json();
    if (rules.length || hooks.length) await this.checkRequest(ctx, body, rules, hooks);
    if (answer) ctx.set(ANSWER, { ...answer, includeUsage: includesUsage(body.stream_options) });
    await next();
  }

  response(ctx: GatewayContext, answer: JsonAnswer): Promise<void> | void {
    const guard = ctx.get(ANSWER);
    const shape = ANSWER_SHAPES[ctx.endpoint.id];
    if (!guard || !shape || answer.status !== 200) return;
    if (!guard.hooks.length && plainlyClean(shape, answer, guard.rules)) return;
    const body = answer.json();
    if (!body) return;
    const parts = shape.parts(body);
    const changed = ruleAnswer(ctx, parts, guard.rules, this.record);
    if (!guard.hooks.length) return changed ? answer.replace(body) : undefined;
    return this.consultOnAnswer(ctx, answer, body, parts, guard.hooks, changed);
  }

  events(ctx: GatewayContext, stream: StreamControl): EventFilter | undefined {
    const guard = ctx.get(ANSWER);
    if (!guard?.rules.length) return undefined;
    const shape = streamShape(ctx.endpoint.id);
    if (!shape) return undefined;
    return new StreamGuard({
      shape,
      rules: guard.rules,
      bound: this.options.stream_hold,
      control: stream,
      includeUsage: guard.includeUsage,
      acted: (rule) => this.record(ctx, { name: rule.name, action: rule.action, phase: 'response' }),
    });
  }

  /** The rules and webhooks over the answer, or undefined when none applies to this call. */
  private answerGuard(ctx: GatewayContext): Omit<AnswerGuard, 'includeUsage'> | undefined {
    if (!ANSWER_SHAPES[ctx.endpoint.id]) return undefined;
    const rules = applying(this.rules, ctx, 'response');
    const hooks = applying(this.hooks, ctx, 'response');
    if (hooks.length && ctx.stream) this.unchecked(ctx, hooks);
    const answerHooks = ctx.stream ? [] : hooks;
    return rules.length || answerHooks.length ? { rules, hooks: answerHooks } : undefined;
  }

  /**
   * A webhook checks a whole answer, which a stream's client gets piece by piece: the stream is a check
   * that cannot be made, and the webhook's `on_error` decides it.
   */
  private unchecked(ctx: GatewayContext, hooks: readonly Scoped<WebhookOptions>[]): void {
    for (const hook of hooks) {
      this.record(ctx, { name: hook.name, action: 'error', phase: 'response' });
      if (hook.on_error === 'block')
        throw Errors.invalidRequest(
          `guardrail '${hook.name}' checks whole answers: ask for this model's answers without \`stream\``,
        );
    }
  }

  private async checkRequest(
    ctx: GatewayContext,
    body: JsonObject,
    rules: readonly Rule[],
    hooks: readonly Scoped<WebhookOptions>[],
  ): Promise<void> {
    const slots = textsAt(body, REQUEST_TEXTS[ctx.endpoint.id]!);
    let changed = ruleRequest(ctx, slots, rules, this.record);
    if (hooks.length) {
      const outcome = await consult(ctx, hooks, 'request', slots, this.record);
      if (outcome.blocked !== undefined) throw Errors.contentFilter(outcome.blocked);
      changed ||= outcome.changed;
    }
    if (changed) ctx.rewrite(body);
  }

  private async consultOnAnswer(
    ctx: GatewayContext,
    answer: JsonAnswer,
    body: JsonObject,
    parts: readonly AnswerPart[],
    hooks: readonly Scoped<WebhookOptions>[],
    changed: boolean,
  ): Promise<void> {
    const slots = parts.flatMap((part) => part.texts);
    let outcome: HookOutcome;
    try {
      outcome = await consult(ctx, hooks, 'response', slots, this.record);
    } catch (e) {
      if (e instanceof GatewayError) return answer.refuse(e); // on_error: block
      throw e;
    }
    if (outcome.blocked !== undefined) for (const part of parts) if (part.texts.length) part.cut(0, '');
    if (changed || outcome.blocked !== undefined || outcome.changed) answer.replace(body);
  }
}

/** Whether the answer is of its API's plainest form and no rule acts on its texts: it goes on unparsed. */
function plainlyClean(shape: AnswerShape, answer: JsonAnswer, rules: readonly Rule[]): boolean {
  const texts = shape.plainTexts?.(answer.bytes.toString('utf8'));
  return texts !== undefined && !actOnAny(texts, rules);
}

const includesUsage = (options: unknown): boolean => isJsonObject(options) && options.include_usage === true;
