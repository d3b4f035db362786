/**
 * A gateway process on a directory the bench keeps across restarts (its gateway.yaml beside its data),
 * timed from spawning to both ports accepting connections: what an operator waits for on a restart.
 */
import { join } from 'node:path';
import { freePort, LOOPBACK, waitForPort } from './ports';
import { Child } from './processes';

/** Where the gateway's files live and the admin token it is started with. */
export interface GatewayHome {
  /** Holds gateway.yaml; the data directory is `data/` below it. */
  readonly dir: string;
  readonly token: string;
}

/** How a start differs beyond its directory. */
export interface GatewayLaunch {
  /** The longest the ports may take to accept connections. */
  readonly timeoutMs: number;
  readonly nodeArgs?: readonly string[];
  /** Where its stdout (its log) goes instead of a pipe. */
  readonly stdoutFile?: string;
}

/** A started gateway, its addresses, and how long it took to open. */
export interface RunningGateway {
  readonly child: Child;
  /** The proxy listener's base URL. */
  readonly url: string;
  readonly adminUrl: string;
  /** ms from spawning the process until both ports accept connections. */
  readonly startMs: number;
}

/** The data directory of `home`. */
export const dataDirOf = (home: GatewayHome): string => join(home.dir, 'data');

/** Rejects, with the child's last output, as soon as it is found dead; `stop` ends the watch. */
function deathOf(child: Child): { dead: Promise<never>; stop: () => void } {
  let alive: NodeJS.Timeout | undefined;
  const dead = new Promise<never>((_, reject) => {
    alive = setInterval(() => {
      try {
        child.assertAlive();
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    }, 100);
  });
  return { dead, stop: () => clearInterval(alive) };
}

/** Starts `dist/core/main.js` on `home` and resolves once both its ports accept connections. */
export async function startGatewayOn(home: GatewayHome, launch: GatewayLaunch): Promise<RunningGateway> {
  const [port, adminPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const child = Child.start(
    'gateway',
    join(__dirname, '..', 'core', 'main.js'),
    [],
    {
      GATEWAY_CONFIG: join(home.dir, 'gateway.yaml'),
      GATEWAY_DATA_DIR: dataDirOf(home),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      GATEWAY_ADMIN_TOKEN: home.token,
    },
    // Not through NODE_OPTIONS: it refuses --cpu-prof.
    { nodeArgs: launch.nodeArgs ?? [], stdoutFile: launch.stdoutFile },
  );
  // A gateway that dies while opening fails the run at once, not after the timeout.
  const death = deathOf(child);
  try {
    await Promise.race([
      death.dead,
      Promise.all([waitForPort(port, launch.timeoutMs), waitForPort(adminPort, launch.timeoutMs)]),
    ]);
  } finally {
    death.stop();
  }
  return {
    child,
    url: `http://${LOOPBACK}:${port}`,
    adminUrl: `http://${LOOPBACK}:${adminPort}`,
    startMs: performance.now() - started,
  };
}
