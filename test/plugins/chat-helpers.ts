/**
 * Shared by the chat tests: one model per contract family, a POST that carries a request id of the test's
 * choosing, and readers for what the upstream simulator received and what the gateway metered.
 */
import type { UsageRecord } from '../../core/stores/usage-store';
import type { LoggedRequest } from '../../simulator/request-log';
import type { TestGateway } from '../helpers/gateway';
import { postJson, sseJson, type JsonResponse } from '../helpers/http';
import { eventually } from '../helpers/wait';

/** The columns of the contract's chat field table: A = modela, B = modelb, C = modelc. */
export type ChatFamily = 'A' | 'B' | 'C';

/** One served model per column of the contract's field table. */
export const MODEL: Readonly<Record<ChatFamily, string>> = {
  A: 'modela-5.5',
  B: 'modelb-3.5-flash',
  C: 'modelc-3.6-flash',
};

export const FAMILIES: readonly ChatFamily[] = ['A', 'B', 'C'];

/** The upstream (gateway.yaml name) and the credential the test config gives it, per family. */
export const UPSTREAM: Readonly<Record<ChatFamily, { name: string; key: string }>> = {
  A: { name: 'modela-main', key: 'sim-modela-key' },
  B: { name: 'modelb-main', key: 'sim-modelb-key' },
  C: { name: 'modelc-main', key: 'sim-modelc-key' },
};

export const hello = [{ role: 'user', content: 'hi' }];

let counter = 0;
/** A fresh request id, readable in failure output. */
export const newId = (label: string): string => `${label.replace(/[^A-Za-z0-9._:-]/g, '_')}.${++counter}`;

/** POSTs a chat request with the gateway key and `x-request-id: id`. */
export function chat(
  gw: TestGateway,
  body: unknown,
  id: string,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return postJson(`${gw.url}/v1/chat/completions`, body, gw.key, { 'x-request-id': id, ...headers });
}

/** What the upstream simulator received for request `id` (the tests send exactly one). */
export function upstreamOf(gw: TestGateway, id: string): LoggedRequest[] {
  return gw.sim.log.list(id);
}

/** The upstream body of request `id`, as a plain object. */
export function upstreamBody(gw: TestGateway, id: string): Record<string, unknown> {
  const [entry] = gw.sim.log.list(id);
  if (!entry) throw new Error(`request ${id} never reached the upstream`);
  return entry.body as Record<string, unknown>;
}

/** The usage records of request `id`, once the finish phase has written at least one. */
export async function usageOf(gw: TestGateway, id: string): Promise<UsageRecord[]> {
  await eventually(async () => (await gw.gateway.usage.list({ id })).length > 0);
  return gw.gateway.usage.list({ id });
}

/** A chunk of a chat stream, loosely typed. */
export interface Chunk {
  id: string;
  choices: { index: number; delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

/** Every JSON chunk of an SSE body (the `[DONE]` line excluded). */
export const chunksOf = (text: string): Chunk[] => sseJson<Chunk>(text);
