/**
 * What a batch holds against its key's and team's budgets: each line's estimate as the budget stage
 * makes it for the same call alone, summed. A batch whose whole estimate does not fit in what is left is
 * refused (429 `budget_exhausted`) before anything is sent; as its lines are sent the hold falls to what
 * the lines not yet sent may cost (each line holds its own while it runs), and it ends with the batch.
 */
import {
  type BudgetHold,
  budgetRefusal,
  budgetSubjectsOf,
  callEstimate,
  type KeyRecord,
  type TeamRecord,
} from '../../../core/kit/stage';
import { type BudgetLedger, type Catalogue, type Pricing } from '../../../core/kit/tokens';
import type { ModelSpec } from '../../../core/kit/upstream';
import type { InputLine } from './input-lines';

/** Output tokens estimated for a line that names no ceiling, as the budget stage's default. */
const DEFAULT_OUTPUT_TOKENS = 4096;

export interface HoldPrices {
  readonly catalogue: Catalogue;
  readonly pricing: Pricing;
}

/** Each line's estimate, in micro-units (0 for a model without a price). */
export function lineEstimates(lines: readonly InputLine[], { catalogue, pricing }: HoldPrices): number[] {
  return lines.map((line) => {
    const spec = servedSpec(catalogue, line);
    if (!spec) return 0; // no longer served: nothing to price it by
    return callEstimate(pricing, spec, line.body, JSON.stringify(line.body).length, DEFAULT_OUTPUT_TOKENS);
  });
}

function servedSpec(catalogue: Catalogue, line: InputLine): ModelSpec | undefined {
  const endpoint = catalogue.endpointAt(line.url);
  if (!endpoint) return undefined;
  try {
    return catalogue.resolve(endpoint, line.model).spec;
  } catch {
    return undefined;
  }
}

/**
 * Holds `micros` for a new batch against its key's and team's budgets, refusing it when it does not fit
 * whole. Undefined when neither has a budget (or the estimate is 0).
 */
export async function holdBatch(
  budgets: BudgetLedger,
  owner: { readonly key: KeyRecord | undefined; readonly team: TeamRecord | undefined },
  micros: number,
): Promise<BudgetHold | undefined> {
  const subjects = budgetSubjectsOf(owner.key, owner.team);
  if (subjects.length === 0) return undefined;
  const admission = await budgets.admit(subjects, micros, 'whole');
  if (!admission.admitted) throw budgetRefusal(admission.subject);
  return admission.hold;
}

/** What the lines not yet started (and those to send again) may cost. */
export function unsentEstimate(estimates: readonly number[], from: number, retry: readonly number[]): number {
  let sum = 0;
  for (let i = from; i < estimates.length; i++) sum += estimates[i]!;
  for (const i of retry) sum += estimates[i] ?? 0;
  return sum;
}
