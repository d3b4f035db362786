/**
 * Starting the benchmark's processes from the compiled project: the upstream simulator, and the targets
 * measured in front of it (the bare passthrough, the gateway, the bound); a peer gateway starts in its own
 * file (portkey.ts).
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminCall } from './admin-call';
import { uniquePrompt, type BenchCase } from './cases';
import { gatewayYaml, type BenchRedis } from './gateway-config';
import { freePort, LOOPBACK, waitForPort } from './ports';
import { Child } from './processes';
import { apiPath } from './upstreams';

export const STARTUP_MS = 15_000;
/** Under a launcher such as valgrind, start-up runs tens of times slower. */
const startupMs = (launcher: readonly string[]): number =>
  launcher.length > 0 ? 12 * STARTUP_MS : STARTUP_MS;
/** dist/, from dist/bench/ where this file runs. */
const DIST = join(__dirname, '..');
const LISTENING = /listening on (http:\/\/\S+)$/;
/** The line the gateway prints, on a first start, holding just the new API key. */
const KEY_LINE = /^sk-[A-Za-z0-9_-]{43}$/;

/**
 * `gateway-redis`: the same gateway with its rate limits counted on Redis; `floor`: the least a metering
 * proxy must do (floor-proxy.ts), and `bound`: the floor plus the cheapest form of the gateway's other
 * per-request duties (bound-proxy.ts); the floor is measured only by `npm run bench:instructions`, the
 * bound by it and by `npm run bench -- --bound`; `portkey`: the Portkey gateway (portkey.ts), a peer.
 */
export type TargetName = 'bare' | 'floor' | 'bound' | 'gateway' | 'gateway-redis' | 'portkey';

/** Everything that differs between the targets for one case: where to send it and with which headers. */
export interface LoadRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Whether `[<id>]` in the body is replaced by a new id in each request (load.ts, cases.ts). */
  readonly newIds?: boolean;
}

/** A server under measurement. */
export interface Target {
  readonly name: TargetName;
  readonly child: Child;
  request(benchCase: BenchCase): LoadRequest;
}

/** The gateway also has an API key and an admin API (for the video drain). */
export interface GatewayTarget extends Target {
  readonly url: string;
  readonly key: string;
  readonly adminUrl: string;
  readonly adminToken: string;
}

export const JSON_TYPE = { 'content-type': 'application/json' };

async function listeningUrl(child: Child, timeoutMs = STARTUP_MS): Promise<string> {
  const line = await child.waitForLine(LISTENING, timeoutMs);
  return LISTENING.exec(line)?.[1] ?? '';
}

/** Starts the simulator on a port of its choosing; resolves with the child and its base URL. */
export async function startSimulator(): Promise<{ child: Child; url: string }> {
  const child = Child.start('simulator', join(DIST, 'simulator', 'main.js'), ['--port', '0']);
  return { child, url: await listeningUrl(child) };
}

/** What differs between the proxies of bench/ as they are started. */
interface BenchProxy {
  readonly env?: NodeJS.ProcessEnv;
  /** Where its stdout goes instead of a pipe (see Child.start). */
  readonly stdoutFile?: string;
  /** Headers every request to it carries. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly launcher?: readonly string[];
  /** `node` flags beside BENCH_NODE_ARGS'. */
  readonly nodeArgs?: readonly string[];
}

/** Starts `dist/bench/<name>-proxy.js`, addressed by the simulator's own paths. */
async function startBenchProxy(
  name: 'bare' | 'floor' | 'bound',
  simUrl: string,
  how: BenchProxy,
): Promise<Target> {
  const { env = {}, stdoutFile, headers = {}, launcher = [], nodeArgs = [] } = how;
  const child = Child.start(
    `${name} proxy`,
    join(DIST, 'bench', `${name}-proxy.js`),
    ['--sim', simUrl],
    env,
    { nodeArgs: [...targetNodeArgs(), ...nodeArgs], launcher, stdoutFile },
  );
  const url = await listeningUrl(child, startupMs(launcher));
  const fixed = { ...JSON_TYPE, ...headers };
  return {
    name,
    child,
    request: (c) => ({
      url: `${url}${apiPath(c.upstream)}`,
      headers: { ...fixed, ...c.headers },
      body: c.body,
    }),
  };
}

/** Starts the bare passthrough or the floor. */
export const startProxy = (
  name: 'bare' | 'floor',
  simUrl: string,
  how: Pick<BenchProxy, 'launcher' | 'nodeArgs'> = {},
): Promise<Target> => startBenchProxy(name, simUrl, how);

/**
 * Extra `node` flags for the proxies under test from `BENCH_NODE_ARGS` (space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a case's time goes in the bare proxy and the gateway.
 */
export const targetNodeArgs = (): string[] => (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** How a gateway (or the bound) is started beyond its simulator and directory. */
export interface GatewayStart {
  /** Rate limits counted on Redis: the `gateway-redis` target. */
  readonly redis?: BenchRedis;
  /** A command prefix it runs under (valgrind's). */
  readonly launcher?: readonly string[];
  /** `node` flags beside BENCH_NODE_ARGS'. */
  readonly nodeArgs?: readonly string[];
  /** The access log, on as shipped. */
  readonly access?: boolean;
  /**
   * The key's team: none, a team with only a name (its lookup and model check run on every call), or a
   * team with a budget and rate limits that never refuse (their checks run too).
   */
  readonly team?: TeamShape;
  /** Traces sent to this OTLP endpoint, the sampler keeping `ratio` of requests; absent, tracing is off. */
  readonly tracing?: { readonly url: string; readonly ratio: number };
  /**
   * The response cache stage in the pipeline: `hit` as clients find it (a repeated call is answered from
   * it), `miss` with a new id in every request's prompt (each is looked up, passed on, and stored).
   */
  readonly responseCache?: 'hit' | 'miss';
  /** The guardrails stage in the pipeline (gateway-config.ts: five rules and the PII set). */
  readonly guardrails?: boolean;
}

/** The one key the bound accepts. */
const BOUND_KEY = 'sk-bench-bound';

/**
 * Starts the bound (bound-proxy.ts) with its usage records and its log (the access lines) in files under
 * `tmpDir`, as the gateway's are.
 */
export function startBound(
  simUrl: string,
  tmpDir: string,
  how: Omit<GatewayStart, 'redis'> = {},
): Promise<Target> {
  const { launcher, nodeArgs = [], access = true } = how;
  return startBenchProxy('bound', simUrl, {
    nodeArgs,
    env: { BOUND_KEY, BOUND_RECORDS: join(tmpDir, 'bound-usage.jsonl'), BOUND_ACCESS: access ? 'on' : 'off' },
    stdoutFile: join(tmpDir, 'bound.log'),
    headers: { authorization: `Bearer ${BOUND_KEY}` },
    launcher,
  });
}

export const TEAM_SHAPES = ['off', 'plain', 'limited'] as const;
export type TeamShape = (typeof TEAM_SHAPES)[number];

/** The teams the key may be put in; `limited`'s budget and limits are far above what a benchmark spends or sends. */
const TEAMS: Readonly<Record<Exclude<TeamShape, 'off'>, object>> = {
  plain: { name: 'bench' },
  limited: {
    name: 'bench',
    budget: { amount_micros: 1_000_000_000_000_000, period: 'month' },
    rate_limit_rpm: 100_000_000,
    rate_limit_tpm: 1_000_000_000_000,
    max_concurrent: 1_000_000,
  },
};

/** Makes `team` through the admin API and moves `key` into it. */
async function putInTeam(adminUrl: string, adminToken: string, key: string, team: object): Promise<void> {
  const made = JSON.parse(await adminCall(adminUrl, adminToken, 'POST', '/admin/teams', team)) as {
    id: string;
  };
  await adminCall(adminUrl, adminToken, 'PATCH', `/admin/keys/${key.slice(0, 11)}`, { team_id: made.id });
}

/** Tracing as a deployment turns it on: the standard variables, a parent-based ratio sampler. */
const tracingEnv = ({ url, ratio }: { url: string; ratio: number }): NodeJS.ProcessEnv => ({
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url,
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: String(ratio),
});

/** Starts the gateway on a fresh data dir under `tmpDir`, and reads the API key it creates on first start. */
export async function startGateway(
  simUrl: string,
  tmpDir: string,
  how: GatewayStart = {},
): Promise<GatewayTarget> {
  const { redis, launcher = [], nodeArgs = [], access = true, team = 'off', tracing } = how;
  const { responseCache, guardrails } = how;
  const name: TargetName = redis ? 'gateway-redis' : 'gateway';
  const config = join(tmpDir, `${name}.yaml`);
  await writeFile(
    config,
    gatewayYaml(simUrl, redis, { access, responseCache: responseCache !== undefined, guardrails }),
  );
  const [port, adminPort] = [await freePort(), await freePort()];
  const adminToken = randomBytes(24).toString('base64url');
  // Its log (the access log included) goes to a file, as in a deployment; the key is read from it.
  const child = Child.start(
    name,
    join(DIST, 'core', 'main.js'),
    [],
    {
      GATEWAY_CONFIG: config,
      GATEWAY_DATA_DIR: join(tmpDir, `${name}-data`),
      ...(redis ? { REDIS_URL: redis.url } : {}),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      GATEWAY_ADMIN_TOKEN: adminToken,
      ...(tracing ? tracingEnv(tracing) : {}),
    },
    { nodeArgs: [...targetNodeArgs(), ...nodeArgs], stdoutFile: join(tmpDir, `${name}.log`), launcher },
  );
  const key = await child.waitForLine(KEY_LINE, startupMs(launcher));
  await waitForPort(port, startupMs(launcher));
  const headers = {
    ...JSON_TYPE,
    authorization: `Bearer ${key}`,
  };
  const missing = responseCache === 'miss';
  const base = `http://${LOOPBACK}:${port}`;
  const adminUrl = `http://${LOOPBACK}:${adminPort}`;
  if (team !== 'off') await putInTeam(adminUrl, adminToken, key, TEAMS[team]);
  return {
    name,
    child,
    url: base,
    key: key ?? '',
    adminUrl,
    adminToken,
    request: (c) => ({
      url: `${base}${c.gatewayPath}`,
      headers: { ...headers, ...c.headers },
      body: missing ? uniquePrompt(c.body) : c.body,
      newIds: missing,
    }),
  };
}
