/**
 * `npm start`: loads gateway.yaml (or GATEWAY_CONFIG), starts the bundled simulator when the file asks
 * for it, starts the gateway, reloads the file on SIGHUP, and stops cleanly on SIGTERM/SIGINT (exit 0
 * after the grace period).
 */
import 'reflect-metadata';
import '../plugins';
import { configPath, parseConfigText, readConfigText } from '../config/load';
import { ConfigError } from '../config/errors';
import { startGateway } from './gateway';
import { createLogger } from './logger';

async function main(): Promise<void> {
  const file = configPath();
  const text = readConfigText(file);
  const config = parseConfigText(text, file);
  const logger = createLogger(config.logging.level);
  // Loaded only when asked for: a gateway in front of real vendors carries no simulator (nor its image codec).
  const simulator = config.simulator.enabled
    ? await (
        await import('../simulator/server')
      ).startSimulator({
        host: config.simulator.host,
        port: config.simulator.port,
      })
    : undefined;
  if (simulator) {
    logger.warn(
      `upstreams point at the bundled simulator on ${simulator.url}: answers are simulated, not real models ` +
        '(set each upstream base_url and api_key in gateway.yaml to use the real vendors)',
    );
  }
  const gateway = await startGateway(config, { logger, source: { file, hash: text.hash } }).catch(
    (e: unknown) => {
      // Plugin sections are validated while composing: name the file there too.
      throw e instanceof ConfigError && !e.file ? new ConfigError(e.path, e.reason, file) : e;
    },
  );
  logger.info({ config: file, data_dir: config.storage.data_dir }, `gateway listening on ${gateway.url}`);
  logger.info(`admin API listening on ${gateway.adminUrl}`);
  if (gateway.firstKey) {
    // Shown once: only its hash is stored. Printed plainly so it can be copied.
    process.stdout.write(
      `\nFirst start: created API key ${gateway.firstKey.record.id} (shown once, keep it):\n`,
    );
    process.stdout.write(`${gateway.firstKey.key}\n\n`);
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

main().catch((e: unknown) => {
  process.stderr.write(
    `gateway: ${e instanceof ConfigError ? 'invalid configuration: ' : ''}${(e as Error).message}\n`,
  );
  process.exit(1);
});
