/**
 * The usage view's headline figures for the range and filters shown: what was spent, and beside it what
 * the response cache saved (its hits' prices, which were not spent).
 */
import { html } from 'htm/preact';
import { useMemo } from 'preact/hooks';
import type { UsageSummaryRow } from '../../core/admin/wire';
import { money } from './format';

interface Sums {
  spent: number;
  unknown: number;
  saved: number;
}

function sumsOf(rows: readonly UsageSummaryRow[]): Sums {
  const sums: Sums = { spent: 0, unknown: 0, saved: 0 };
  for (const r of rows) {
    sums.spent += r.cost_micros;
    sums.unknown += r.cost_unknown_requests;
    sums.saved += r.saved_micros;
  }
  return sums;
}

const requests = (n: number): string => `${n.toLocaleString('en-US')} request${n === 1 ? '' : 's'}`;

/** `cache`: show what the cache saved (not for tool calls, which are never cached). */
export function UsageFigures(props: { rows: readonly UsageSummaryRow[]; cache: boolean }) {
  const { spent, unknown, saved } = useMemo(() => sumsOf(props.rows), [props.rows]);
  return html`<dl class="figures">
    <div data-figure="spend">
      <dt>Spend</dt>
      <dd>${money(spent)}</dd>
      ${unknown > 0 && html`<dd class="hint">and ${requests(unknown)} of unknown cost</dd>`}
    </div>
    ${
      props.cache &&
      html`<div data-figure="saved" class="saved">
        <dt>Saved by cache</dt>
        <dd>${money(saved)}</dd>
      </div>`
    }
  </dl>`;
}
