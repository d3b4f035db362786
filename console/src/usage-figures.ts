/**
 * The usage view's headline figures for the range and filters shown: what was spent, beside it what the
 * response cache saved (its hits' prices, which were not spent), and how much of the spend was batches'.
 */
import { html } from 'htm/preact';
import { useMemo } from 'preact/hooks';
import type { UsageSummaryRow } from '../../core/admin/wire';
import { money } from './format';

interface Sums {
  spent: number;
  unknown: number;
  saved: number;
  batch: number;
  batchRequests: number;
}

function sumsOf(rows: readonly UsageSummaryRow[]): Sums {
  const sums: Sums = { spent: 0, unknown: 0, saved: 0, batch: 0, batchRequests: 0 };
  for (const r of rows) {
    sums.spent += r.cost_micros;
    sums.unknown += r.cost_unknown_requests;
    sums.saved += r.saved_micros;
    sums.batch += r.batch_cost_micros;
    sums.batchRequests += r.batch_requests;
  }
  return sums;
}

const requests = (n: number): string => `${n.toLocaleString('en-US')} request${n === 1 ? '' : 's'}`;

/** `cache`: show what the cache saved (not for tool calls, which are never cached). */
export function UsageFigures(props: { rows: readonly UsageSummaryRow[]; cache: boolean }) {
  const { spent, unknown, saved, batch, batchRequests } = useMemo(() => sumsOf(props.rows), [props.rows]);
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
    ${
      batchRequests > 0 &&
      html`<div data-figure="batches" class="batches">
        <dt>Of which batches</dt>
        <dd>${money(batch)}</dd>
        <dd class="hint">${requests(batchRequests)} in batches</dd>
      </div>`
    }
  </dl>`;
}
