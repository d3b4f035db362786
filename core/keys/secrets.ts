/**
 * Secrets the gateway keeps in its data directory when the environment does not provide them:
 * the HMAC secret for key hashes and the admin token. Created on first start with mode 0600.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readFileIfExists, writeFileAtomic } from '../stores/embedded/atomic-file';

export const KEY_SECRET_FILE = 'key-secret';
export const ADMIN_TOKEN_FILE = 'admin-token';

/** The value from the environment, else the one in `dataDir/file`, else a new random one saved there. */
export async function loadOrCreateSecret(
  dataDir: string,
  file: string,
  fromEnv: string | undefined,
): Promise<string> {
  if (fromEnv) return fromEnv;
  const path = join(dataDir, file);
  const existing = (await readFileIfExists(path))?.trim();
  if (existing) return existing;
  const created = randomBytes(32).toString('base64url');
  await writeFileAtomic(path, created + '\n');
  return created;
}

/** Reads a secret without creating it (for the CLI, which must find the gateway's own). */
export async function readSecret(
  dataDir: string,
  file: string,
  fromEnv: string | undefined,
): Promise<string | undefined> {
  return fromEnv || (await readFileIfExists(join(dataDir, file)))?.trim() || undefined;
}
