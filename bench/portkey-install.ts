/**
 * The Portkey gateway the bench measures as a peer (`--peer portkey`): one pinned release, installed once
 * into a cache folder outside the repository, so the project's own dependencies never carry it.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

export const PORTKEY_VERSION = '1.15.2';
const PORTKEY = '@portkey-ai/gateway';
/**
 * Portkey's dependencies held at one release, so that runs on different days measure the same peer:
 * `@hono/node-server` because later releases break Portkey's streamed responses, `hono` because it is
 * the framework every request runs through. The rest float within Portkey's own ranges.
 */
const HELD = { '@hono/node-server': '1.13.5', hono: '4.13.19' } as const;

/** Where the install goes: `$XDG_CACHE_HOME` (else `~/.cache`)/model-gateway-bench/portkey-<version>. */
export function portkeyDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'model-gateway-bench', `portkey-${PORTKEY_VERSION}`);
}

/** The cache folder's package.json: Portkey at its exact version, with its server and framework held. */
export const MANIFEST = {
  name: 'model-gateway-bench-portkey',
  private: true,
  description: 'Written by the model gateway bench (--peer portkey); safe to delete.',
  dependencies: { [PORTKEY]: PORTKEY_VERSION },
  overrides: HELD,
};

/** What was found installed, for the report. */
export interface PortkeyInstall {
  /** Portkey's server script: `node <entry> --port=N` serves on N. */
  readonly entry: string;
  readonly description: string;
}

async function versionAt(packageDir: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/** The version of `name` that Node resolves from `fromDir`: the nearest node_modules up to `root`. */
export async function versionSeenFrom(
  fromDir: string,
  name: string,
  root: string,
): Promise<string | undefined> {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const version = await versionAt(join(dir, 'node_modules', name));
    if (version !== undefined || dir === root || dirname(dir) === dir) return version;
  }
}

/** Why the install in `dir` is not the pinned one, or undefined when it is. */
export async function installProblem(dir: string): Promise<string | undefined> {
  const gatewayDir = join(dir, 'node_modules', PORTKEY);
  const checks = [{ name: PORTKEY, wanted: PORTKEY_VERSION, found: await versionAt(gatewayDir) }];
  for (const [name, wanted] of Object.entries(HELD))
    checks.push({ name, wanted, found: await versionSeenFrom(gatewayDir, name, dir) });
  const wrong = checks.filter((c) => c.found !== c.wanted);
  return wrong.length === 0
    ? undefined
    : wrong.map((c) => `${c.name} ${c.found ?? 'missing'}, not ${c.wanted}`).join('; ');
}

/**
 * `npm install` without a lockfile: the versions are pinned by the manifest (Portkey exact, the held
 * packages overridden), the rest float within Portkey's own ranges. Install scripts are skipped: Portkey's
 * only one runs patch-package, and its package ships no patches.
 */
async function npmInstall(dir: string, timeoutMs: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(MANIFEST, null, 2)}\n`);
  const args = ['install', '--no-package-lock', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund'];
  try {
    await promisify(execFile)('npm', args, { cwd: dir, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const { stderr = '' } = err as { stderr?: string };
    throw new Error(
      `npm install of Portkey in ${dir} failed: ${(err as Error).message}\n${stderr.slice(-2000)}`,
    );
  }
}

/** Installs the pinned Portkey into `dir` unless it is there already; throws if the result is not pinned. */
export async function installPortkey(dir: string, timeoutMs: number): Promise<PortkeyInstall> {
  if ((await installProblem(dir)) !== undefined) {
    process.stderr.write(`bench: installing ${PORTKEY}@${PORTKEY_VERSION} into ${dir}\n`);
    await npmInstall(dir, timeoutMs);
    const problem = await installProblem(dir);
    if (problem !== undefined) throw new Error(`Portkey in ${dir} is not the pinned install: ${problem}`);
  }
  const gatewayDir = join(dir, 'node_modules', PORTKEY);
  const held = Object.entries(HELD)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  return {
    entry: join(gatewayDir, 'build', 'start-server.js'),
    description: `Portkey ${PORTKEY_VERSION} (${held}) from ${dir}`,
  };
}
