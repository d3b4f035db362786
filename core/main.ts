/**
 * `npm start`: loads gateway.yaml (or GATEWAY_CONFIG), starts the bundled simulator when the file asks
 * for it (on a port of the system's choosing when that port is 0), starts the gateway, reloads the file
 * on SIGHUP, and stops cleanly on SIGTERM/SIGINT (exit 0 after the grace period).
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { configPath, parseConfigText, readConfigText, variablesOf } from '../config/load';
import { ConfigError } from '../config/errors';
import type { GatewayConfig } from '../config/schema';
import type { RunningSimulator } from '../simulator/server';
import { startGateway } from './boot/gateway';
import { listenNamed } from './http/listen-failure';
import { createLogger, printAfterLogs } from './base/logger';
import { rawPluginSectionProblems } from './plugins/plugin-sections';
import { pluginContainer } from './plugins/plugin-container';
import { loadPlugins } from './plugins/plugin-discovery';
import { logStarted } from './boot/start-up-log';

async function main(): Promise<void> {
  // Found on disk: core names no plugin, so adding one touches only its folder and gateway.yaml.
  const plugins = loadPlugins(join(__dirname, '..', 'plugins'));
  const file = configPath();
  const text = readConfigText(file);
  // A file core refuses has its plugin blocks checked too: one start-up names every problem.
  const read = () =>
    parseConfigText(text, file, process.env, (doc) =>
      rawPluginSectionProblems(doc, pluginContainer(plugins)),
    );
  let config = read();
  const logger = createLogger(config.logging.level, config.logging.format);
  const simulator = config.simulator.enabled ? await startBundledSimulator(config) : undefined;
  if (simulator && placedBySystem(config, simulator)) config = read();
  if (simulator) {
    logger.warn(
      `upstreams point at the bundled simulator on ${simulator.url}: answers are simulated, not real models ` +
        "(to use the real vendors, turn it off and point each upstream's base_url and api_key at its vendor: " +
        'docs/configuration.md, Pointing at real vendors)',
    );
  }
  const gateway = await startGateway(config, { logger, source: { file, hash: text.hash }, plugins }).catch(
    (e: unknown) => {
      // Plugin sections are validated while composing: name the file there too.
      throw e instanceof ConfigError ? e.inFile(file) : e;
    },
  );
  logStarted(logger, config, gateway, file);
  if (gateway.firstKey) {
    // Shown once: only its hash is stored. Printed plainly so it can be copied.
    printAfterLogs(
      logger,
      `\nFirst start: created API key ${gateway.firstKey.record.id} (shown once, keep it):\n` +
        `${gateway.firstKey.key}\n\n`,
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: no longer accepting; letting requests in flight finish`);
    void (async () => {
      await gateway.close();
      await simulator?.close();
      logger.info('stopped');
      logger.flush();
      process.exit(0);
    })();
  };
  // The reload logs what it applied or why it refused; the running configuration serves either way.
  process.on('SIGHUP', () => void gateway.reload('signal'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * `simulator.port` 0 (SIMULATOR_PORT=0) lets the system pick the simulator's port, so that gateways on one
 * machine need not be given one each. The variables that set it are then set to the port bound, in this
 * process's environment: read again, the file's upstreams (`${SIMULATOR_PORT:-9100}` in their default
 * base_urls) point at it, and so do they on every reload, which reads the environment again. True when
 * the file is to be read again.
 */
function placedBySystem(config: GatewayConfig, simulator: RunningSimulator): boolean {
  const variables = variablesOf(config, 'simulator.port');
  if (config.simulator.port !== 0 || variables.length === 0) return false;
  for (const variable of variables) process.env[variable] = String(simulator.port);
  return true;
}

/**
 * Loaded only when asked for: a gateway in front of real vendors carries no simulator (nor its image
 * codec). A second instance started with the same file meets its port first: the failure says whose it is.
 */
async function startBundledSimulator(config: GatewayConfig): Promise<RunningSimulator> {
  const { startSimulator } = await import('../simulator/server');
  const { host, port } = config.simulator;
  const [enabledBy] = variablesOf(config, 'simulator.enabled');
  const place = {
    what: 'the bundled simulator',
    setting: 'simulator.port',
    variables: variablesOf(config, 'simulator.port'),
    orElse: `turn it off (${enabledBy ? `${enabledBy}=false` : 'simulator.enabled: false'}) when the upstreams are real vendors`,
  };
  return listenNamed(place, host, port, () => startSimulator({ host, port }));
}

main().catch((e: unknown) => {
  process.stderr.write(
    `gateway: ${e instanceof ConfigError ? 'invalid configuration: ' : ''}${(e as Error).message}\n`,
  );
  process.exit(1);
});
