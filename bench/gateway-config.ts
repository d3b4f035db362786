/**
 * The gateway.yaml the benchmark runs with: the shipped file's full pipeline, pointed at the simulator
 * child, with only what would distort a load test changed.
 */
import { stringify } from 'yaml';
import { SIM_UPSTREAMS } from './upstreams';

/** Far above any rate a benchmark reaches, so the limiter is exercised but never refuses. */
const NEVER_LIMITING_RPM = 100_000_000;

export const VIDEO_UPSTREAM = 'videoa-main';
/** The video drain's poll policy: the cap it is measured under (printed with the figures). */
export const VIDEO_POLL = {
  every: '200ms',
  max_every: '2s',
  deadline: '10m',
  concurrency: 16,
  per_second: 200,
};

const videoUpstream = (simUrl: string) => ({
  plugin: 'videoa',
  base_url: `${simUrl}/videoa`,
  api_key: 'sim-videoa-key',
  poll: VIDEO_POLL,
});

/** Where the `gateway-redis` target keeps its shared counts. */
export interface BenchRedis {
  readonly url: string;
  readonly keyPrefix: string;
}

/**
 * The configuration document for a gateway in front of the simulator at `simUrl`; with `redis`, its
 * rate-limit stage counts on Redis (one script per request) instead of in memory; `access: false` turns
 * the access log off (shipped on); `responseCache` adds the cache stage (in memory) where the docs put it.
 */
export function gatewayYaml(
  simUrl: string,
  redis?: BenchRedis,
  access = true,
  responseCache = false,
): string {
  const upstreams = Object.fromEntries(
    SIM_UPSTREAMS.map((u) => [
      u.id,
      { plugin: u.plugin, base_url: `${simUrl}${u.basePath}`, api_key: u.apiKey },
    ]),
  );
  return stringify({
    // Loopback only: the benchmark sends nothing off this machine. Ports come from PORT / ADMIN_PORT.
    server: { host: '127.0.0.1', shutdown_grace: '1s' },
    admin: { host: '127.0.0.1' },
    storage: { driver: 'embedded', data_dir: './data' },
    keys: { cache_ttl: '1s' },
    // As shipped: info, with the access log (a line per request), written to a file (targets.ts).
    logging: { level: 'info', access },
    pipeline: [
      'auth',
      'model-router',
      {
        'rate-limit': {
          backend: redis ? 'redis' : 'memory',
          requests_per_minute: NEVER_LIMITING_RPM,
          per_key: {},
        },
      },
      'usage-metering',
      ...(responseCache ? [{ cache: { backend: 'memory' } }] : []),
      { 'sse-relay': { ping_every: '15s' } },
    ],
    upstreams: { ...upstreams, [VIDEO_UPSTREAM]: videoUpstream(simUrl) },
    video: { protocols: { generic: {} }, sweep_every: '1s' },
    routes: {},
    simulator: { enabled: false },
    ...(redis ? { redis: { url: redis.url, key_prefix: redis.keyPrefix } } : {}),
  });
}
