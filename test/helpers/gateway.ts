/**
 * Starts a real gateway (with the built-in plugins) and a real simulator for a test, in the shape of the
 * shipped gateway.yaml, on free ports and a fresh data directory; everything stops at the test's end.
 */
import 'reflect-metadata';
import './load-plugins';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../../config/env';
import { buildConfig } from '../../config/load';
import { startGateway, type RunningGateway, type StartOptions } from '../../core/boot/gateway';
import type { NewKey } from '../../core/stores/key-store';
import { startSimulator, type RunningSimulator } from '../../simulator/server';

/** The part of tap's Test a helper needs. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface TestGateway {
  readonly gateway: RunningGateway;
  readonly sim: RunningSimulator;
  /** A key with access to every model. */
  readonly key: string;
  readonly url: string;
  readonly dataDir: string;
  /** Creates another key and returns it in full. */
  createKey(spec?: NewKey): Promise<string>;
}

export type ConfigDoc = Record<string, unknown>;

/** Video polls in tests: often, so tasks of a few hundred milliseconds finish promptly. */
export const FAST_POLL = {
  every: '25ms',
  max_every: '100ms',
  deadline: '30s',
  concurrency: 16,
  per_second: 0,
};

/** Every upstream of a test config sent to `origin` (`http://host:port`), each keeping its own path. */
export function pointUpstreamsAt(doc: ConfigDoc, origin: string): void {
  for (const upstream of Object.values(doc.upstreams as Record<string, { base_url: string }>))
    upstream.base_url = origin + new URL(upstream.base_url).pathname;
}

/** modela-5.5 routed to modela-main with a fallback, `modela-backup`, at the simulator `backupUrl`. */
export function withModelaBackup(doc: ConfigDoc, backupUrl: string): void {
  const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
  upstreams['modela-backup'] = {
    plugin: 'modela',
    base_url: `${backupUrl}/modela/v1`,
    api_key: 'sim-modela-key',
  };
  doc.routes = {
    'modela-5.5': { targets: [{ upstream: 'modela-main' }], fallbacks: [{ upstream: 'modela-backup' }] },
  };
}

/** `doc` with the pipeline stage `stage` left out, whether listed by name or with options. */
export function withoutStage(doc: ConfigDoc, stage: string): void {
  doc.pipeline = (doc.pipeline as unknown[]).filter(
    (e) => e !== stage && !(typeof e === 'object' && e !== null && stage in e),
  );
}

/** A configuration document like the shipped gateway.yaml, pointing at `simUrl`. */
export function testConfig(simUrl: string, dataDir: string): ConfigDoc {
  return {
    server: { host: '127.0.0.1', port: 0 },
    admin: { host: '127.0.0.1', port: 0 },
    storage: { driver: 'embedded', data_dir: dataDir },
    logging: { level: 'silent' },
    pipeline: [
      'auth',
      'model-router',
      { 'rate-limit': { requests_per_minute: 100_000 } },
      'budget',
      'usage-metering',
      { 'sse-relay': { ping_every: '15s' } },
    ],
    upstreams: {
      'modela-main': { plugin: 'modela', base_url: `${simUrl}/modela/v1`, api_key: 'sim-modela-key' },
      'modelb-main': {
        plugin: 'modelb',
        base_url: `${simUrl}/modelb/v1beta/openai`,
        api_key: 'sim-modelb-key',
      },
      'modelc-main': {
        plugin: 'modelc',
        base_url: `${simUrl}/modelc/compatible-mode/v1`,
        api_key: 'sim-modelc-key',
      },
      'modeld-main': { plugin: 'modeld', base_url: `${simUrl}/modeld`, api_key: 'sim-modeld-key' },
      'modelb-image': {
        plugin: 'modelb-image',
        base_url: `${simUrl}/modelb/v1beta/openai`,
        api_key: 'sim-modelb-key',
      },
      'videoa-main': {
        plugin: 'videoa',
        base_url: `${simUrl}/videoa`,
        api_key: 'sim-videoa-key',
        poll: FAST_POLL,
      },
      'videob-main': {
        plugin: 'videob',
        base_url: `${simUrl}/videob/api/v3`,
        api_key: 'sim-videob-key',
        poll: FAST_POLL,
      },
    },
    video: { lease: '2s', sweep_every: '200ms' },
    prices: {
      'videoa-*': { per_second: { '720P': 0.1, '1080P': 0.15 } },
      'videob-2-0-260128': { per_million_tokens: 10 },
    },
  };
}

/** Closes `gateway` when the test ends; resolves with a key to it (the first key, else a new one). */
export async function closedAtEnd(t: Teardown, gateway: RunningGateway): Promise<string> {
  t.teardown(() => gateway.close(1_000));
  return gateway.firstKey?.key ?? (await gateway.keys.create({})).key;
}

export async function tempDir(t: Teardown, prefix = 'gateway-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts a simulator and a gateway. `adjust` may change the configuration document before it is
 * validated (e.g. another pipeline, a short timeout); `options` reach startGateway (a logger to read);
 * `configEnv` is what `${VAR}` references in the document read.
 */
export async function startTestGateway(
  t: Teardown,
  adjust: (doc: ConfigDoc, sim: RunningSimulator) => void = () => undefined,
  options: StartOptions = {},
  configEnv: Env = {},
): Promise<TestGateway> {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dataDir = await tempDir(t);
  const doc = testConfig(sim.url, dataDir);
  adjust(doc, sim);
  const gateway = await startGateway(buildConfig(doc, configEnv), options);
  const key = await closedAtEnd(t, gateway);
  return {
    gateway,
    sim,
    key,
    url: gateway.url,
    dataDir,
    createKey: async (spec = {}) => (await gateway.keys.create(spec)).key,
  };
}
