/** The load generator: autocannon at a fixed concurrency, reduced to the figures the report needs. */
import autocannon from 'autocannon';
import { NEW_ID } from './cases';
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
  ...(request.newIds ? { requests: [{ setupRequest: withNewId(request.body) }] } : {}),
});

/** Ids handed out by this process: new across runs too, so a warm-up's calls are not repeated later. */
let lastId = 0;

/**
 * Puts a new number in each request's body where NEW_ID is. autocannon's own `idReplacement` sends a
 * Content-Length that is not the body's (8.0.0 counts 27 characters an id, and not for top-level bodies).
 */
const withNewId =
  (body: string) =>
  (req: autocannon.Request): autocannon.Request => ({ ...req, body: body.replace(NEW_ID, String(++lastId)) });

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

/** A load that goes on until it is stopped, at most `ratePerSecond` requests a second in all. */
export interface SteadyShape {
  readonly connections: number;
  readonly ratePerSecond: number;
}

/** A load under way; `stop` ends it and resolves with what it measured from its start. */
export interface RunningLoad {
  stop(): Promise<LoadFigures>;
}

/** Long enough never to end by itself: a steady load ends when it is stopped. */
const UNTIL_STOPPED_S = 7 * 24 * 3600;

/**
 * Sends `request` at `shape.ratePerSecond` over `shape.connections` until stopped. autocannon spends each
 * connection's share of a second's requests at the start of that second. Its correction for coordinated
 * omission is off: at a rate it assumes an interval of 1 ms between requests and fills the histogram
 * with invented samples; a stalled request is still counted at the time it took.
 */
export function startLoad(request: LoadRequest, shape: SteadyShape): RunningLoad {
  let settle: (err: unknown, result: autocannon.Result) => void = () => undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    settle = (err, result) =>
      err
        ? reject(err instanceof Error ? err : new Error('autocannon failed', { cause: err }))
        : resolve(result);
  });
  const instance = autocannon(
    {
      ...target(request),
      connections: shape.connections,
      overallRate: shape.ratePerSecond,
      ignoreCoordinatedOmission: true,
      pipelining: 1,
      duration: UNTIL_STOPPED_S,
      timeout: 10,
    },
    (err: unknown, result) => settle(err, result),
  );
  return {
    stop: async () => {
      instance.stop();
      return figures(await done);
    },
  };
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
