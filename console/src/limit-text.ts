/** How the tables show a key's or a team's tools, guardrails, limits, budget and spend. */
import { html } from 'htm/preact';
import { money } from './format';
import type { LimitedRecord } from './limit-form';

/** What a key or a team spent in its budget period (KeyWithActivity and TeamWithActivity alike). */
export interface Spending extends LimitedRecord {
  readonly spent_micros: number;
  readonly spent_unknown_requests: number;
}

export const budgetText = (r: LimitedRecord): string =>
  r.budget ? `${money(r.budget.amount_micros)} ${r.budget.period === 'month' ? '/ month' : 'total'}` : '—';

/** The spend (this month for a monthly budget), and whether calls of unknown cost are in it. */
export function spentText(r: Spending) {
  const spent = money(r.spent_micros);
  const unknown = r.spent_unknown_requests;
  return unknown > 0
    ? html`${spent} <span class="muted" title="calls to models without a price">+ ${unknown} unpriced</span>`
    : spent;
}

/** The spend as a share of the budget, drawn as a meter that turns amber at 80% and red past it. */
export function budgetMeter(r: Spending) {
  const amount = r.budget?.amount_micros;
  if (!amount) return null;
  const share = Math.round((r.spent_micros / amount) * 100);
  return html`<div class="spend">
    <meter
      min="0"
      max=${amount}
      low=${amount * 0.8}
      high=${amount * 0.999}
      optimum="0"
      value=${r.spent_micros}
    ></meter>
    <span>${share}%</span>
  </div>`;
}

/** The MCP tools it allows (names and globs), or all of them when it names none. */
export const toolsText = (r: LimitedRecord): string =>
  r.allowed_tools?.length ? r.allowed_tools.join(', ') : 'all';

/** The opt-in guardrail rules it names, or a muted dash for none. */
export const guardrailsText = (r: LimitedRecord) =>
  r.guardrails?.length ? r.guardrails.join(', ') : html`<span class="muted">—</span>`;

/** Its own rate limits, or `fallback` when it has none. */
export const limitsText = (r: LimitedRecord, fallback: string): string =>
  [
    r.rate_limit_rpm && `${r.rate_limit_rpm}/min`,
    r.rate_limit_tpm && `${r.rate_limit_tpm} tokens/min`,
    r.max_concurrent && `${r.max_concurrent} at once`,
  ]
    .filter(Boolean)
    .join(', ') || fallback;
