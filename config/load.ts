/**
 * Reads gateway.yaml: YAML → `${VAR}` substitution → validation of the core sections → environment
 * overrides (PORT, ADMIN_PORT, GATEWAY_DATA_DIR, GATEWAY_TRUSTED_PROXIES) → a deeply frozen object. It remembers which
 * environment variables fed each field (`variablesOf`), so messages can name the one to set.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { interpolateTree, type Env } from './env';
import { ConfigError, type ConfigProblem } from './errors';
import {
  gatewayConfigSchema,
  redisUrl,
  trustedProxies,
  type CoreConfig,
  type GatewayConfig,
  type PluginSections,
} from './schema';
import { parseSection } from './validate';
import { port } from './units';

/** Where the configuration file is: `GATEWAY_CONFIG`, else `gateway.yaml` in the working directory. */
export function configPath(env: Env = process.env): string {
  return resolve(env.GATEWAY_CONFIG ?? 'gateway.yaml');
}

/** Loads and validates a configuration file; throws ConfigError with the file and field path. */
export function loadConfigFile(file: string, env: Env = process.env): GatewayConfig {
  return parseConfigText(readConfigText(file), file, env);
}

/** A file's text and the sha256 (hex) of its bytes, which names its version. */
export interface ConfigText {
  readonly text: string;
  readonly hash: string;
}

export function readConfigText(file: string): ConfigText {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new ConfigError('', `cannot read: ${(e as Error).message}`, file);
  }
  return { text: bytes.toString('utf8'), hash: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * Checks that run on the document even when core's schema refuses it, so that one start-up names every
 * problem: the plugins' blocks, which only the plugins can judge (core/plugins/plugin-sections.ts).
 */
export type AlsoCheck = (doc: Readonly<Record<string, unknown>>) => readonly ConfigProblem[];

/** Parses and validates a file's text; errors name `file`. */
export function parseConfigText(
  { text }: ConfigText,
  file: string,
  env: Env = process.env,
  alsoCheck?: AlsoCheck,
): GatewayConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ConfigError('', `invalid YAML: ${(e as Error).message}`, file);
  }
  try {
    return buildConfig(doc, env, dirname(file), alsoCheck);
  } catch (e) {
    if (e instanceof ConfigError) throw e.inFile(file);
    throw e;
  }
}

/** Validates an already parsed document (tests build configurations as objects, in the file's shape). */
export function buildConfig(
  doc: unknown,
  env: Env = process.env,
  baseDir = process.cwd(),
  alsoCheck?: AlsoCheck,
): GatewayConfig {
  const problems: ConfigProblem[] = [];
  const fedBy = new Map<string, readonly string[]>();
  const substituted = interpolateTree(doc ?? {}, env, '', {
    onError: (path, e) => problems.push({ path, reason: e.message }),
    onVariables: (path, variables) => fedBy.set(path, variables),
  });
  if (problems.length > 0) throw ConfigError.of(problems);
  const { core, sections } = splitSections(substituted);
  const config: GatewayConfig = { ...parseCore(core, alsoCheck), sections };
  applyOverrides(config, env, baseDir, fedBy);
  FED_BY.set(config, fedBy);
  return deepFreeze(config);
}

/**
 * The document's top-level sections core's schema does not know, apart: each names a service plugin
 * (`mcp:`), whose own schema checks it when a gateway is composed (core/plugins/plugin-sections.ts also
 * refuses a name no plugin has, as core's schema refuses an unknown field).
 */
function splitSections(doc: unknown): { core: unknown; sections: PluginSections } {
  if (!isRecord(doc)) return { core: doc, sections: {} };
  const core: Record<string, unknown> = {};
  const sections: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(doc)) {
    if (Object.hasOwn(gatewayConfigSchema.shape, name)) core[name] = value;
    else sections[name] = value;
  }
  return { core, sections };
}

/** Core's schema; when it refuses the document, `alsoCheck`'s problems are reported with its own. */
function parseCore(substituted: unknown, alsoCheck: AlsoCheck | undefined): CoreConfig {
  try {
    return parseSection(gatewayConfigSchema, substituted, '');
  } catch (e) {
    if (!(e instanceof ConfigError) || !alsoCheck || !isRecord(substituted)) throw e;
    const more = alsoCheck(substituted);
    throw more.length > 0 ? ConfigError.of([...e.problems, ...more]) : e;
  }
}

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The environment variables that override a field whatever the file says. */
const OVERRIDES = [
  ['PORT', 'server.port'],
  ['ADMIN_PORT', 'admin.port'],
  ['REDIS_URL', 'redis.url'],
  ['GATEWAY_DATA_DIR', 'storage.data_dir'],
  ['GATEWAY_TRUSTED_PROXIES', 'server.trusted_proxies'],
] as const;

function applyOverrides(
  config: GatewayConfig,
  env: Env,
  baseDir: string,
  fedBy: Map<string, readonly string[]>,
): void {
  if (env.PORT) config.server.port = parseSection(port, env.PORT, 'PORT');
  if (env.ADMIN_PORT) config.admin.port = parseSection(port, env.ADMIN_PORT, 'ADMIN_PORT');
  if (env.REDIS_URL !== undefined) config.redis.url = parseSection(redisUrl, env.REDIS_URL, 'REDIS_URL');
  if (env.GATEWAY_TRUSTED_PROXIES !== undefined) {
    const list = env.GATEWAY_TRUSTED_PROXIES.split(',').map((entry) => entry.trim());
    config.server.trusted_proxies = parseSection(
      trustedProxies,
      list.filter((entry) => entry !== ''),
      'GATEWAY_TRUSTED_PROXIES',
    );
  }
  // A data_dir in the file is relative to the file; one from the environment is relative to the shell.
  config.storage.data_dir = env.GATEWAY_DATA_DIR
    ? resolve(env.GATEWAY_DATA_DIR)
    : resolve(baseDir, config.storage.data_dir);
  for (const [variable, path] of OVERRIDES) fedBy.set(path, [variable]);
}

const FED_BY = new WeakMap<GatewayConfig, ReadonlyMap<string, readonly string[]>>();

/**
 * The environment variables that can set a field of a loaded configuration (`upstreams.modela-main.base_url`
 * → `MODELA_BASE_URL` when the file says `${MODELA_BASE_URL:-…}`; `server.port` → `PORT`); empty when
 * only the file sets it.
 */
export function variablesOf(config: GatewayConfig, path: string): readonly string[] {
  return FED_BY.get(config)?.get(path) ?? [];
}

/** Freezes a plain object tree so no component can change the running configuration under another. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
