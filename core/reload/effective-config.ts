/**
 * What a reload can and cannot change. Listeners, stores, Redis and the poller's timing are built once
 * at start-up, so a new file's values for them wait for a restart: the running configuration keeps the
 * old ones, and the reload reports each such setting the file changed.
 */
import type { GatewayConfig } from '../../config/schema';
import { deepFreeze } from '../../config/load';

/** Settings only a restart applies: whole sections, or single fields of one. */
const RESTART_ONLY: readonly string[] = [
  'server',
  'admin',
  'console',
  'storage',
  'redis',
  'simulator',
  'reload',
  'alerts',
  'tracing',
  'keys.cache_ttl',
  'keys.cache_max',
  'keys.failed_auth_limit',
  'keys.failed_auth_window',
  'keys.revoke_check_every',
  'logging.format',
  'video.poller',
  'video.lease',
  'video.sweep_every',
  'video.idempotency_window',
];

export interface Effective {
  /** The file's configuration with the running values of the restart-only settings. */
  readonly config: GatewayConfig;
  /** Settings whose new values in the file apply only after a restart, e.g. `server.port`. */
  readonly restartRequired: readonly string[];
}

type Tree = Record<string, unknown>;

export function effectiveConfig(running: GatewayConfig, file: GatewayConfig): Effective {
  const config = structuredClone(file) as unknown as Tree;
  const restartRequired: string[] = [];
  for (const path of RESTART_ONLY) {
    const [section, field] = path.split('.') as [string, string | undefined];
    const runningSection = (running as unknown as Tree)[section] as Tree;
    const fileSection = (file as unknown as Tree)[section] as Tree;
    if (field === undefined) {
      restartRequired.push(...changedLeaves(runningSection, fileSection, section));
      config[section] = runningSection;
    } else {
      restartRequired.push(...changedLeaves(runningSection[field], fileSection[field], path));
      (config[section] as Tree)[field] = runningSection[field];
    }
  }
  return { config: deepFreeze(config as unknown as GatewayConfig), restartRequired };
}

/** The paths of the leaves (arrays count as one) that differ between `a` and `b`. */
function changedLeaves(a: unknown, b: unknown, path: string): string[] {
  const isTree = (v: unknown): v is Tree => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isTree(a) || !isTree(b)) return JSON.stringify(a) === JSON.stringify(b) ? [] : [path];
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].flatMap((name) => changedLeaves(a[name], b[name], `${path}.${name}`));
}
