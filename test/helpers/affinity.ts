/**
 * Gateways for the session-affinity tests: modela-5.5 routed to two targets, each on a simulator of its
 * own (`modela-main` on the gateway's, `modela-backup` on a second), with the route's `affinity` given;
 * and what a test asks of them: a chat call, and which upstream served it (its usage record).
 */
import type { RunningGateway } from '../../core/boot/gateway';
import type { ConfigDoc } from './gateway';
import { postJson } from './http';
import { until } from './wait';

export const MODEL = 'modela-5.5';

/** Adds `modela-backup` at `backupUrl` and routes modela-5.5 to both targets with `affinity`. */
export function twoTargets(doc: ConfigDoc, backupUrl: string, affinity?: Record<string, unknown>): void {
  (doc.upstreams as Record<string, unknown>)['modela-backup'] = {
    plugin: 'modela',
    base_url: `${backupUrl}/modela/v1`,
    api_key: 'sim-modela-key',
  };
  doc.routes = {
    [MODEL]: {
      targets: [{ upstream: 'modela-main' }, { upstream: 'modela-backup' }],
      ...(affinity ? { affinity } : {}),
    },
  };
}

export interface Served {
  readonly url: string;
  readonly key: string;
  readonly gateway: RunningGateway;
}

let calls = 0;

/**
 * Makes a chat call (`messages`, a session header when `session` is given) and resolves with the
 * upstream its usage record names: the one that served it.
 */
export async function servedBy(
  gw: Served,
  session: string | undefined,
  messages: readonly object[] = [{ role: 'user', content: 'hi #sim tokens=2' }],
): Promise<string> {
  const id = `affinity-${process.pid}-${++calls}`;
  const headers: Record<string, string> = { 'x-request-id': id };
  if (session !== undefined) headers['x-session-id'] = session;
  const res = await postJson(`${gw.url}/v1/chat/completions`, { model: MODEL, messages }, gw.key, headers);
  if (res.status !== 200) throw new Error(`call ${id}: ${res.status} ${res.text}`);
  // The record is written by the finish phase, after the last byte the client read.
  const [record] = await until(
    () => gw.gateway.usage.list({ id }),
    (records) => records.length === 1,
    { what: `the usage record of ${id}` },
  );
  return record!.upstream;
}

/** The upstreams that served `n` calls made by `make` in turn. */
export async function servedSet(n: number, make: (i: number) => Promise<string>): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) seen.add(await make(i));
  return seen;
}
