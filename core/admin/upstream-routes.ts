/**
 * The upstreams' health, for operators:
 *   GET /admin/upstreams   → {data: {<upstream>: {consecutive_failures, ejected_until, times_ejected,
 *                            retries_from, retries_to}}}, every upstream configured, on this instance
 * `ejected_until` is an ISO time, or null while the upstream is in service; the retry counts are since start.
 */
import type { UpstreamStatus } from '../routing/resilience';

/** This instance's view of its upstreams' health (Resilience.view). */
export type UpstreamHealthSource = () => Record<string, UpstreamStatus>;

const IN_SERVICE: UpstreamStatus = {
  consecutive_failures: 0,
  ejected_until: null,
  times_ejected: 0,
  retries_from: 0,
  retries_to: 0,
};

/** Every configured upstream, those never failed or retried included, by name. */
export function upstreamsPage(
  source: UpstreamHealthSource,
  configured: readonly string[],
): { data: Record<string, UpstreamStatus> } {
  const known = source();
  const data: Record<string, UpstreamStatus> = {};
  for (const name of configured) data[name] = known[name] ?? IN_SERVICE;
  for (const [name, status] of Object.entries(known)) data[name] ??= status;
  return { data };
}
