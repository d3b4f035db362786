/**
 * What `npm start` tells an operator once the gateway listens: where (the address bound, and where to
 * connect from this machine), and what looks unintended: a port open on every interface, upstreams left
 * pointing at the simulator after it was turned off, a console that was never built.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { variablesOf } from '../../config/load';
import type { GatewayConfig } from '../../config/schema';
import type { RunningGateway } from './gateway';
import { CONSOLE_BUILD_DIR } from '../admin/console-assets';
import { listenAddress } from '../http/listen-address';
import { simulatorLeftovers } from '../upstream/simulator-leftovers';

type Listening = Pick<RunningGateway, 'url' | 'boundUrl' | 'adminUrl' | 'adminBoundUrl'>;

export function logStarted(logger: Logger, config: GatewayConfig, gateway: Listening, file: string): void {
  logger.info(
    { config: file, data_dir: config.storage.data_dir },
    `gateway listening on ${where(gateway.boundUrl, gateway.url)}`,
  );
  logger.info(`admin API listening on ${where(gateway.adminBoundUrl, gateway.adminUrl)}`);
  for (const section of ['server', 'admin'] as const) {
    const warning = everyInterfaceWarning(config, section, file);
    if (warning) logger.warn({ host: config[section].host }, warning);
  }
  for (const leftover of simulatorLeftovers(config)) {
    logger.warn(
      { upstream: leftover.upstream, base_url: leftover.baseUrl, set: leftover.set },
      leftover.message,
    );
  }
  const notBuilt = consoleNotBuiltWarning();
  if (notBuilt) logger.warn({ dir: CONSOLE_BUILD_DIR }, notBuilt);
}

/**
 * The console's bundle is built by `npm run build`, not committed: code compiled some other way (tsc
 * alone, a build from before the bundle moved under dist/) runs without it, and `/` would be a bare 404.
 * Undefined when the page is there.
 */
export function consoleNotBuiltWarning(dir: string = CONSOLE_BUILD_DIR): string | undefined {
  if (existsSync(join(dir, 'index.html'))) return undefined;
  return 'the console is not built, so the admin listener serves no page at /; `npm run build` builds it';
}

/** `http://0.0.0.0:8080 (every interface; from this machine: http://127.0.0.1:8080)`, or the one URL. */
const where = (bound: string, local: string): string =>
  bound === local ? bound : `${bound} (every interface; from this machine: ${local})`;

/** A listener open to the network, and how to keep it on this machine; undefined when it is not. */
export function everyInterfaceWarning(
  config: GatewayConfig,
  section: 'server' | 'admin',
  file: string,
): string | undefined {
  const { host, port } = config[section];
  if (!listenAddress(host, port).everyInterface) return undefined;
  const variables = variablesOf(config, `${section}.host`);
  const how = variables.length
    ? `set ${variables[0]}=127.0.0.1 (${section}.host)`
    : `set ${section}.host: 127.0.0.1 in ${file}`;
  const what = section === 'server' ? 'the gateway' : 'the admin API';
  return (
    `${what} listens on every interface (${section}.host ${host || '0.0.0.0'}): anyone who can reach ` +
    `this machine can connect to it; to keep it on this machine, ${how}, or put it behind a firewall`
  );
}
