/** A gateway with the cache stage in its pipeline, and what the cache tests read of it. */
import OpenAI from 'openai';
import type { ConfigDoc, TestGateway } from '../../../helpers/gateway';
import { eventually } from '../../../helpers/wait';
import type { UsageRecord } from '../../../../core/stores/usage-store';

/**
 * The shipped pipeline with `cache` (given `options`) after usage-metering, where the docs put it, and
 * the shipped prices of the models the tests call.
 */
export function withCache(options: Record<string, unknown> = {}): (doc: ConfigDoc) => void {
  return (doc) => {
    const pipeline = doc.pipeline as unknown[];
    pipeline.splice(pipeline.indexOf('usage-metering') + 1, 0, { cache: { backend: 'memory', ...options } });
    doc.prices = { ...(doc.prices as object), ...PRICES };
  };
}

const PRICES = {
  'modela-*': { input_per_mtok: 1.25, cached_input_per_mtok: 0.125, output_per_mtok: 10 },
  'modelc-*': { input_per_mtok: 0.8, cached_input_per_mtok: 0.16, output_per_mtok: 4.8 },
  'modeld-sonnet-*': { input_per_mtok: 3, output_per_mtok: 15 },
  'modela-embedding-3-small': { input_per_mtok: 0.02 },
};

export const openaiFor = (gw: { url: string }, key: string): OpenAI =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

/** How many calls with request id `id` reached the simulator. */
export const upstreamCalls = (gw: TestGateway, id: string): number =>
  gw.sim.log.list().filter((r) => r.request_id === id).length;

/** The usage record of request `id`, once written. */
export async function recordOf(gw: TestGateway, id: string): Promise<UsageRecord> {
  await eventually(async () => (await gw.gateway.usage.list({ id })).length > 0);
  return (await gw.gateway.usage.list({ id }))[0]!;
}

/** A prompt no other test sends: each test's calls are its own entries. */
let prompts = 0;
export const freshPrompt = (controls = ''): string => `tell me ${++prompts} #sim tokens=5 ${controls}`.trim();
