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

/** What a benchmarked gateway runs beside the shipped pipeline. */
export interface BenchStages {
  /** The access log (shipped on). */
  readonly access?: boolean;
  /** The cache stage, in memory, where the docs put it. */
  readonly responseCache?: boolean;
  /** The guardrails stage with five pattern rules and the PII set, on requests and answers (none matching). */
  readonly guardrails?: boolean;
}

/**
 * Five rules of the shapes operators write (a phrase, alternatives, a bounded and an open pattern) and
 * every PII detector, masking: what a benchmarked call pays to be read on both sides.
 */
const BENCH_GUARDRAILS = {
  rules: [
    { name: 'no-injection', pattern: 'ignore (all )?previous instructions', flags: 'i', action: 'block' },
    { name: 'no-codenames', pattern: 'Project (Zephyr|Boreas|Notus)', action: 'block' },
    { name: 'no-jailbreak', pattern: 'do anything now|developer mode', flags: 'i', action: 'block' },
    { name: 'tickets', pattern: 'TICKET-\\d{4,8}', action: 'mask', placeholder: '[TICKET]' },
    { name: 'internal-hosts', pattern: '[a-z0-9-]+\\.corp\\.internal', action: 'log' },
    { name: 'pii', pii: ['email', 'phone', 'credit_card', 'iban', 'ip_address', 'secret'], action: 'mask' },
  ],
};

/**
 * The configuration document for a gateway in front of the simulator at `simUrl`; with `redis`, its
 * rate-limit stage counts on Redis (one script per request) instead of in memory; `stages` says what
 * else it runs.
 */
export function gatewayYaml(
  simUrl: string,
  redis?: BenchRedis,
  { access = true, responseCache = false, guardrails = false }: BenchStages = {},
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
      ...(guardrails ? [{ guardrails: BENCH_GUARDRAILS }] : []),
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
