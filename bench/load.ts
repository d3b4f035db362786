/** The load generator: autocannon at a fixed concurrency, reduced to the figures the report needs. */
import autocannon from 'autocannon';
import type { LoadRequest } from './targets';

/** How hard and how long to push. */
export interface LoadShape {
  readonly connections: number;
  readonly durationS: number;
}

/** What one run measured. */
export interface LoadFigures {
  /** Mean of the per-second response counts. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** Connection errors, timeouts included. */
  readonly errors: number;
  /** Responses received in the run. */
  readonly requests: number;
}

/** What autocannon is told about the request itself, whatever the shape of the load. */
const target = (request: LoadRequest) => ({
  url: request.url,
  method: 'POST' as const,
  headers: { ...request.headers },
  body: request.body,
});

const figures = (result: autocannon.Result): LoadFigures => ({
  rps: result.requests.average,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
  requests: result.requests.total,
});

/** Sends `request` over `shape.connections` keep-alive connections, one request in flight on each. */
export async function runLoad(request: LoadRequest, shape: LoadShape): Promise<LoadFigures> {
  const { connections, durationS } = shape;
  return figures(
    await autocannon({ ...target(request), connections, pipelining: 1, duration: durationS, timeout: 10 }),
  );
}

/** Sends `request` exactly `amount` times over `connections` keep-alive connections, however long it takes. */
export async function sendCount(
  request: LoadRequest,
  connections: number,
  amount: number,
): Promise<LoadFigures> {
  return figures(await autocannon({ ...target(request), connections, amount, timeout: 120 }));
}

/** One full response through `fetch`, to check a target answers correctly before it is measured. */
export async function fetchSample(request: LoadRequest): Promise<{ status: number; body: string }> {
  const res = await fetch(request.url, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.text() };
}
