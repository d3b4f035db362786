/**
 * A restart of the gateway on the full data directory: how long it takes until its ports accept
 * connections, whether it then holds every key and every usage record, and the memory it took.
 */
import type { KeyWithActivity } from '../core/admin/wire';
import { adminJson } from './admin-call';
import { startGatewayOn, type GatewayHome, type GatewayLaunch } from './gateway-process';
import { chatRequest, checkChat } from './latency-probe';
import type { KeyWithSecret } from './stores-keys';
import { countUsage, type UsageCount } from './stores-usage';

/** What one restart found. */
export interface RestartFigures {
  /** ms from spawning the process until both ports accept connections. */
  readonly startMs: number;
  /** The records a usage summary counted, and how long it took. */
  readonly usage: UsageCount;
  /** The records it should count: those written, those the gateway's own calls left. */
  readonly expectedRequests: number;
  /** The process's peak RSS (VmHWM) after the checks; undefined without /proc. */
  readonly peakRssKb: number | undefined;
}

/** A restart's checks leave one usage record: the chat call made with a key made before. */
export const RECORDS_PER_RESTART = 1;

/**
 * Starts the gateway on `home`, counts its usage, checks it knows `key` (by id, and by a chat call with
 * its secret, which leaves a record) and stops it.
 */
export async function restart(
  home: GatewayHome,
  launch: GatewayLaunch,
  key: KeyWithSecret,
  expectedRequests: number,
): Promise<RestartFigures> {
  const gw = await startGatewayOn(home, launch);
  try {
    const api = { url: gw.adminUrl, token: home.token };
    const usage = await countUsage(api);
    const found = await adminJson<KeyWithActivity>(api, 'GET', `/admin/keys/${encodeURIComponent(key.id)}`);
    if (found.id !== key.id || found.description !== key.description) {
      throw new Error(`after the restart, GET /admin/keys/${key.id} answered key ${found.id}`);
    }
    await checkChat(chatRequest(gw.url, key.key));
    return { startMs: gw.startMs, usage, expectedRequests, peakRssKb: gw.child.peakRssKb() };
  } finally {
    await gw.child.stop();
  }
}
