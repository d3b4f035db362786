/** The secrets a gateway keeps in its data directory unless the environment gives them. */
import { mkdir } from 'node:fs/promises';
import type { Env } from '../../config/env';
import type { GatewayConfig } from '../../config/schema';
import { KeyHasher } from '../keys/api-key';
import { Sealer } from '../keys/sealer';
import { ADMIN_TOKEN_FILE, KEY_SECRET_FILE, loadOrCreateSecret } from '../keys/secrets';

export interface GatewaySecrets {
  /** What keys are hashed with (GATEWAY_KEY_SECRET): instances sharing a store must share it. */
  readonly secret: string;
  readonly hasher: KeyHasher;
  /** Seals what plugins keep in tokens clients carry, under a key derived from `secret`. */
  readonly sealer: Sealer;
  /** The bootstrap admin token (GATEWAY_ADMIN_TOKEN). */
  readonly adminToken: string;
}

export async function gatewaySecrets(config: GatewayConfig, env: Env): Promise<GatewaySecrets> {
  const dataDir = config.storage.data_dir;
  await mkdir(dataDir, { recursive: true });
  const secret = await loadOrCreateSecret(dataDir, KEY_SECRET_FILE, env.GATEWAY_KEY_SECRET);
  const adminToken = await loadOrCreateSecret(dataDir, ADMIN_TOKEN_FILE, env.GATEWAY_ADMIN_TOKEN);
  const key = Buffer.from(secret);
  return { secret, hasher: new KeyHasher(key), sealer: new Sealer(key), adminToken };
}
