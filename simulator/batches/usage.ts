import type { LineResult } from '../batch-runs/line';
import { isRecord } from '../is-record';

/** How an endpoint's `usage` names its counts: chat and embeddings say prompt and completion, Responses input and output. */
interface Spelling {
  readonly input: string;
  readonly output: string;
  readonly inputDetails: string;
  readonly outputDetails: string;
}

const SPELLINGS: readonly Spelling[] = [
  {
    input: 'prompt_tokens',
    output: 'completion_tokens',
    inputDetails: 'prompt_tokens_details',
    outputDetails: 'completion_tokens_details',
  },
  {
    input: 'input_tokens',
    output: 'output_tokens',
    inputDetails: 'input_tokens_details',
    outputDetails: 'output_tokens_details',
  },
];

const count = (record: unknown, key: string): number => {
  const value = isRecord(record) ? record[key] : undefined;
  return typeof value === 'number' ? value : 0;
};

interface Totals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  total: number;
}

function add(into: Totals, usage: Record<string, unknown>): void {
  const s = SPELLINGS.find((one) => one.input in usage) ?? SPELLINGS[0]!;
  into.input += count(usage, s.input);
  into.cached += count(usage[s.inputDetails], 'cached_tokens');
  into.output += count(usage, s.output);
  into.reasoning += count(usage[s.outputDetails], 'reasoning_tokens');
  into.total += count(usage, 'total_tokens');
}

/**
 * A batch's `usage`: the usage of every line answered so far, summed, in the words the Batch object uses
 * whatever its endpoint. Lines that failed carry none.
 */
export function batchUsage(results: readonly LineResult[]): Record<string, unknown> {
  const t: Totals = { input: 0, cached: 0, output: 0, reasoning: 0, total: 0 };
  for (const r of results) {
    const usage = isRecord(r.body) ? r.body.usage : undefined;
    if (r.status === 200 && isRecord(usage)) add(t, usage);
  }
  return {
    input_tokens: t.input,
    input_tokens_details: { cached_tokens: t.cached },
    output_tokens: t.output,
    output_tokens_details: { reasoning_tokens: t.reasoning },
    total_tokens: t.total,
  };
}
