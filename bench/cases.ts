/**
 * What the benchmark sends: one case per kind of exchange, and how to tell a correct answer to each.
 */
import { MODELA, MODELC, type SimUpstream } from './upstreams';

export const CASE_NAMES = ['json', 'stream'] as const;
export type CaseName = (typeof CASE_NAMES)[number];

/** One kind of request, sent identically to both targets. */
export interface BenchCase {
  readonly name: CaseName;
  /** The simulated vendor the case's model lives at (the bare proxy is addressed by its path). */
  readonly upstream: SimUpstream;
  readonly body: string;
  /** Why a 200 response body is not a correct answer, or undefined when it is. */
  problemWith(body: string): string | undefined;
}

function jsonProblem(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { usage?: unknown };
    return typeof parsed.usage === 'object' && parsed.usage !== null ? undefined : 'no `usage` in the body';
  } catch {
    return 'the body is not JSON';
  }
}

const streamProblem = (body: string): string | undefined =>
  body.trimEnd().endsWith('data: [DONE]') ? undefined : 'the stream does not end with `data: [DONE]`';

export const CASES: Readonly<Record<CaseName, BenchCase>> = {
  json: {
    name: 'json',
    upstream: MODELA,
    body: JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'Say hello' }] }),
    problemWith: jsonProblem,
  },
  stream: {
    name: 'stream',
    upstream: MODELC,
    body: JSON.stringify({
      model: 'modelc-3.6-plus',
      stream: true,
      messages: [{ role: 'user', content: 'Say hello' }],
    }),
    problemWith: streamProblem,
  },
};
