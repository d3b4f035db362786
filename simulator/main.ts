import { startSimulator } from './server';

const DEFAULT_PORT = 9100;

/** The port from `--port N`, `--port=N` or `SIM_PORT`, in that order of precedence. */
function portFrom(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const at = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  const arg = at < 0 ? undefined : (argv[at]?.split('=')[1] ?? argv[at + 1]);
  const raw = arg ?? env.SIM_PORT ?? String(DEFAULT_PORT);
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${raw}`);
  return port;
}

async function main(): Promise<void> {
  const sim = await startSimulator({
    port: portFrom(process.argv.slice(2), process.env),
    // From the environment only: a token on the command line would show in the process list.
    mcpToken: process.env.SIM_MCP_TOKEN,
  });
  console.log(`simulator listening on ${sim.url}`);
  const stop = (): void => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error('simulator failed to start:', err);
  process.exit(1);
});
