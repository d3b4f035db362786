/**
 * With the bundled simulator off, an upstream still at the simulator's address (or still sending one of
 * its keys) is a configuration half done: its calls fail, or reach something that is not the vendor.
 * This finds each such upstream and names what to set, from the file itself: the `${VAR}` that feeds the
 * field when there is one, else the field's path. Generic: it reads `base_url` and `api_key`, which every
 * upstream has, and knows no plugin.
 */
import { variablesOf } from '../../config/load';
import type { GatewayConfig } from '../../config/schema';

/** The simulator's credentials (simulator/families/*: `defaultKey`), `sim-<family>-key`. */
export const SIMULATOR_KEY = /^sim-[a-z0-9-]+-key$/;

/** Names a client on this machine may use for the simulator's host. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1', '0.0.0.0']);

export interface SimulatorLeftover {
  readonly upstream: string;
  readonly baseUrl: string;
  /** What to set: environment variables, or field paths where the file feeds them from none. */
  readonly set: readonly string[];
  readonly message: string;
}

/** Every upstream that still points at the simulator or uses its key; none while the simulator runs. */
export function simulatorLeftovers(config: GatewayConfig): SimulatorLeftover[] {
  if (config.simulator.enabled) return [];
  const leftovers: SimulatorLeftover[] = [];
  for (const [name, entry] of Object.entries(config.upstreams)) {
    const baseUrl = typeof entry.base_url === 'string' ? entry.base_url : '';
    const apiKey = typeof entry.api_key === 'string' ? entry.api_key : '';
    const atSimulator = isSimulatorAddress(baseUrl, config.simulator);
    const simulatorKey = SIMULATOR_KEY.test(apiKey);
    if (!atSimulator && !simulatorKey) continue;
    const fields = [...(atSimulator ? ['base_url'] : []), ...(simulatorKey ? ['api_key'] : [])];
    const set = fields.flatMap((field) => toSet(config, name, field));
    const what = atSimulator
      ? `still points at the simulator (${baseUrl})`
      : `still sends the simulator's key`;
    leftovers.push({
      upstream: name,
      baseUrl,
      set,
      message: `upstream ${name} ${what} while the simulator is off: set ${set.join(' and ')}`,
    });
  }
  return leftovers;
}

function isSimulatorAddress(baseUrl: string, simulator: GatewayConfig['simulator']): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  const host = url.hostname;
  const sameHost = host === simulator.host || (LOOPBACK.has(host) && LOOPBACK.has(simulator.host));
  return sameHost && Number(url.port || (url.protocol === 'https:' ? 443 : 80)) === simulator.port;
}

/** The variable that feeds the field, else the field itself (the file sets it and nothing overrides it). */
function toSet(config: GatewayConfig, upstream: string, field: string): readonly string[] {
  const path = `upstreams.${upstream}.${field}`;
  const variables = variablesOf(config, path);
  return variables.length > 0 ? variables : [path];
}
