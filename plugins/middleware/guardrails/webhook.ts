/**
 * One check by a policy webhook: the call's texts go out as `{phase, model, key_id, team_id, texts}`, and
 * the answer `{action: allow | block | mask, reason?, texts?}` comes back. Anything else (no answer in
 * time, a status other than 2xx, a body not of that shape, masked texts not one for one) is a failed
 * check, which the webhook's `on_error` decides.
 */
import { z } from 'zod';
import { type GatewayContext, traced } from '../../../core/kit/plugin';
import type { Phase, WebhookOptions } from './options';

const verdict = z.object({
  action: z.enum(['allow', 'block', 'mask']),
  reason: z.string().max(1_000).optional(),
  texts: z.array(z.string()).optional(),
});

export type WebhookVerdict =
  | { readonly action: 'allow' }
  | { readonly action: 'block'; readonly reason: string | undefined }
  | { readonly action: 'mask'; readonly texts: readonly string[] }
  | { readonly action: 'failed'; readonly why: string };

/** Answers of this size are refused unread past it: a webhook is a yes or no, with texts when it masks. */
const MAX_ANSWER = 4 * 1024 * 1024;

async function post(hook: WebhookOptions, body: string): Promise<unknown> {
  const response = await fetch(hook.url, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...hook.headers,
      'content-type': 'application/json',
      'user-agent': 'model-gateway-guardrails',
    },
    body,
    signal: AbortSignal.timeout(hook.timeout),
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`answered ${response.status}`);
  }
  const text = await response.text();
  if (text.length > MAX_ANSWER) throw new Error('answered more than a verdict');
  return JSON.parse(text) as unknown;
}

export async function askWebhook(
  hook: WebhookOptions,
  ctx: GatewayContext,
  phase: Phase,
  texts: readonly string[],
): Promise<WebhookVerdict> {
  const body = JSON.stringify({
    phase,
    model: ctx.target?.spec.id ?? null,
    key_id: ctx.key?.id ?? null,
    team_id: ctx.team?.id ?? null,
    texts,
  });
  let answer: unknown;
  try {
    answer = await traced(ctx, `guardrail ${hook.name}`, () => post(hook, body));
  } catch (e) {
    return {
      action: 'failed',
      why: (e as Error).name === 'TimeoutError' ? 'timed out' : (e as Error).message,
    };
  }
  const parsed = verdict.safeParse(answer);
  if (!parsed.success) return { action: 'failed', why: 'answered a body that is not a verdict' };
  const { action, reason, texts: masked } = parsed.data;
  if (action === 'allow') return { action };
  if (action === 'block') return { action, reason };
  if (masked?.length !== texts.length) return { action: 'failed', why: 'masked a different number of texts' };
  return { action, texts: masked };
}
