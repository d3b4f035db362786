/**
 * Several real gateway processes in front of one simulator, sharing a Redis, each with its own data
 * directory, and one API key valid on all of them: the same key record (hashed with the same
 * GATEWAY_KEY_SECRET) is written into each data directory's key file before start. With `team`, the
 * same team is written into each teams.json, and the shared key and a second one belong to it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { generateKey, KeyHasher } from '../../core/keys/api-key';
import type { KeyRecord } from '../../core/stores/key-store';
import type { TeamRecord } from '../../core/stores/team-store';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { tempDir, testConfig, type ConfigDoc, type Teardown } from './gateway';
import { listeningOn, spawnGateway, type GatewayProcess } from './process';
import { PATIENT_COMMAND_TIMEOUT } from './patient-redis';
import { redisPrefix, TEST_REDIS_URL } from './redis';

export interface ClusterOptions {
  readonly sim: RunningSimulator;
  readonly redisUrl: string;
  readonly keyPrefix: string;
  /** The rate-limit stage's options. */
  readonly rateLimit: Record<string, unknown>;
  /** Limits on the shared key (rate_limit_rpm, rate_limit_tpm, max_concurrent). */
  readonly keyLimits?: Partial<Pick<KeyRecord, 'rate_limit_rpm' | 'rate_limit_tpm' | 'max_concurrent'>>;
  /** A team's limits and budget: the shared key and `teamMateKey` are then in that team. */
  readonly team?: Partial<
    Pick<TeamRecord, 'rate_limit_rpm' | 'rate_limit_tpm' | 'max_concurrent' | 'budget'>
  >;
  readonly instances?: number;
  /** Any other change to each instance's gateway.yaml. */
  readonly adjust?: (doc: ConfigDoc) => void;
}

export interface Cluster {
  readonly urls: readonly string[];
  readonly key: string;
  /** A second key, without the shared key's limits: probes that leave its windows alone. */
  readonly probeKey: string;
  /** With `team`: its id, and a second key in it (with no limits of its own). */
  readonly teamId?: string;
  readonly teamMateKey?: string;
  readonly processes: readonly GatewayProcess[];
  /** Each instance's admin API, in the order of `urls`, and the admin token all of them take. */
  readonly adminUrls: readonly string[];
  readonly adminToken: string;
}

/** A key record valid on every instance of the cluster, hashed with its shared secret. */
function clusterKey(secret: string, description: string, over: Partial<KeyRecord> = {}) {
  const { key, id } = generateKey();
  const record: KeyRecord = {
    id,
    hash: new KeyHasher(Buffer.from(secret)).hash(key),
    description,
    enabled: true,
    allowed_models: [],
    ...over,
    created_at: new Date().toISOString(),
  };
  return { key, record };
}

/** The team of `options.team`, as teams.json holds it. */
const clusterTeam = (limits: ClusterOptions['team']): TeamRecord => ({
  id: `team-${randomBytes(9).toString('base64url')}`,
  name: 'cluster',
  ...limits,
  allowed_models: [],
  metadata: {},
  created_at: new Date().toISOString(),
});

export async function startCluster(t: Teardown, options: ClusterOptions): Promise<Cluster> {
  const secret = randomBytes(32).toString('base64url');
  const adminToken = randomBytes(24).toString('base64url');
  const team = options.team && clusterTeam(options.team);
  const inTeam = team ? { team_id: team.id } : {};
  const shared = clusterKey(secret, 'shared by the cluster', { ...options.keyLimits, ...inTeam });
  const probe = clusterKey(secret, 'probes');
  const mate = clusterKey(secret, "the shared key's team mate", inTeam);
  const records = [shared.record, probe.record, ...(team ? [mate.record] : [])];
  const started = Array.from({ length: options.instances ?? 3 }, async () => {
    const dir = await tempDir(t);
    const dataDir = join(dir, 'data');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'keys.json'), JSON.stringify({ version: 1, keys: records }));
    if (team) await writeFile(join(dataDir, 'teams.json'), JSON.stringify({ version: 1, teams: [team] }));
    const doc = testConfig(options.sim.url, dataDir);
    (doc.pipeline as unknown[])[2] = { 'rate-limit': options.rateLimit };
    // Instances of a cluster share counts exactly: a stalled one waits for Redis rather than count alone.
    doc.redis = {
      url: options.redisUrl,
      key_prefix: options.keyPrefix,
      command_timeout: PATIENT_COMMAND_TIMEOUT,
    };
    doc.logging = { level: 'info' }; // start-up and fallback lines are read by tests
    options.adjust?.(doc);
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, stringify(doc));
    // Port 0, read back from the start-up line: ports picked free beforehand were once taken by another
    // instance of the same cluster before it bound.
    const gateway = spawnGateway(t, {
      GATEWAY_CONFIG: file,
      PORT: '0',
      ADMIN_PORT: '0',
      GATEWAY_KEY_SECRET: secret,
      GATEWAY_ADMIN_TOKEN: adminToken,
      REDIS_URL: options.redisUrl, // not the environment's own
    });
    return { ...(await listeningOn(gateway)), gateway };
  });
  const all = await Promise.all(started);
  return {
    urls: all.map((g) => g.url),
    key: shared.key,
    probeKey: probe.key,
    ...(team ? { teamId: team.id, teamMateKey: mate.key } : {}),
    processes: all.map((g) => g.gateway),
    adminUrls: all.map((g) => g.adminUrl),
    adminToken,
  };
}

/** A cluster on the test Redis (a prefix of its own) in front of a simulator of its own. */
export async function startRedisCluster(
  t: Teardown,
  options: Omit<ClusterOptions, 'sim' | 'redisUrl' | 'keyPrefix'>,
): Promise<Cluster> {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  return startCluster(t, { ...options, sim, redisUrl: TEST_REDIS_URL, keyPrefix: redisPrefix(t) });
}
