/**
 * Reads gateway.yaml: YAML → `${VAR}` substitution → validation of the core sections → environment
 * overrides (PORT, ADMIN_PORT, GATEWAY_DATA_DIR) → a deeply frozen object.
 */
import { readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { interpolateTree, type Env } from './env';
import { ConfigError } from './errors';
import { gatewayConfigSchema, redisUrl, type GatewayConfig } from './schema';
import { parseSection } from './validate';
import { port } from './units';

/** Where the configuration file is: `GATEWAY_CONFIG`, else `gateway.yaml` in the working directory. */
export function configPath(env: Env = process.env): string {
  return resolve(env.GATEWAY_CONFIG ?? 'gateway.yaml');
}

/** Loads and validates a configuration file; throws ConfigError with the file and field path. */
export function loadConfigFile(file: string, env: Env = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError('', `cannot read: ${(e as Error).message}`, file);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new ConfigError('', `invalid YAML: ${(e as Error).message}`, file);
  }
  try {
    return buildConfig(doc, env, dirname(file));
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigError(e.path, e.reason, file);
    throw e;
  }
}

/** Validates an already parsed document (tests build configurations as objects, in the file's shape). */
export function buildConfig(doc: unknown, env: Env = process.env, baseDir = process.cwd()): GatewayConfig {
  const substituted = interpolateTree(doc ?? {}, env, '', (path, e) => {
    throw new ConfigError(path, e.message);
  });
  const config = parseSection(gatewayConfigSchema, substituted, '');
  applyOverrides(config, env, baseDir);
  return deepFreeze(config);
}

function applyOverrides(config: GatewayConfig, env: Env, baseDir: string): void {
  if (env.PORT) config.server.port = parseSection(port, env.PORT, 'PORT');
  if (env.ADMIN_PORT) config.admin.port = parseSection(port, env.ADMIN_PORT, 'ADMIN_PORT');
  if (env.REDIS_URL !== undefined) config.redis.url = parseSection(redisUrl, env.REDIS_URL, 'REDIS_URL');
  // A data_dir in the file is relative to the file; one from the environment is relative to the shell.
  config.storage.data_dir = env.GATEWAY_DATA_DIR
    ? resolve(env.GATEWAY_DATA_DIR)
    : resolve(baseDir, config.storage.data_dir);
}

/** Freezes a plain object tree so no component can change the running configuration under another. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
