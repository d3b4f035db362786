/**
 * The chat calls `npm run bench:stores` makes beside the work it measures: a light, steady stream of
 * non-streamed chat completions through the gateway to the simulator with one key, whose latency says
 * what that work costs the callers meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CASES } from './cases';
import { fetchSample, sendCount, startLoad, type LoadFigures, type SteadyShape } from './load';
import { JSON_TYPE, type LoadRequest } from './targets';

/** A handful of calls a second, over two connections. */
export const PROBE: SteadyShape = { connections: 2, ratePerSecond: 20 };
/** Thrown away, sent as fast as they are answered: they open the connections and warm the JIT. */
const WARMUP_CALLS = 2_000;
/** Long enough for a p99 of a few hundred calls. */
export const CALM_S = 20;

/** The call: the json case of `npm run bench` with `key`. */
export const chatRequest = (gatewayUrl: string, key: string): LoadRequest => ({
  url: `${gatewayUrl}${CASES.json.gatewayPath}`,
  headers: { ...JSON_TYPE, authorization: `Bearer ${key}` },
  body: CASES.json.body,
});

/** Throws unless one call answers 200 with a chat completion. */
export async function checkChat(request: LoadRequest): Promise<void> {
  const { status, body } = await fetchSample(request);
  const problem = status === 200 ? CASES.json.problemWith(body) : `status ${status}`;
  if (problem) throw new Error(`the chat call failed: ${problem}; body: ${body.slice(0, 300)}`);
}

/** What `work` resolved with, and the calls made while it ran. */
export interface Probed<T> {
  readonly result: T;
  readonly calls: LoadFigures;
}

/** Runs `work` with the calls going, from its start to its end. */
export async function probed<T>(request: LoadRequest, work: () => Promise<T>): Promise<Probed<T>> {
  const load = startLoad(request, PROBE);
  let result: T;
  try {
    result = await work();
  } catch (e) {
    await load.stop();
    throw e;
  }
  return { result, calls: await load.stop() };
}

/** The calls with nothing else going on: a warm-up, thrown away, then `CALM_S` measured. */
export async function calmCalls(request: LoadRequest): Promise<LoadFigures> {
  await sendCount(request, PROBE.connections, WARMUP_CALLS);
  return (await probed(request, () => sleep(CALM_S * 1000))).calls;
}
