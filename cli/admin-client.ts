/**
 * Finds the running gateway's admin API from the same configuration and data directory the gateway uses
 * (GATEWAY_CONFIG or ./gateway.yaml; ADMIN_PORT, GATEWAY_DATA_DIR, GATEWAY_ADMIN_TOKEN), and calls it.
 */
import { configPath, loadConfigFile } from '../config/load';
import type { Env } from '../config/env';
import { ADMIN_TOKEN_FILE, readSecret } from '../core/keys/secrets';

export interface AdminClient {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

export class AdminError extends Error {}

export async function connectAdmin(env: Env = process.env): Promise<AdminClient> {
  const config = loadConfigFile(configPath(env), env);
  const token = await readSecret(config.storage.data_dir, ADMIN_TOKEN_FILE, env.GATEWAY_ADMIN_TOKEN);
  if (!token) {
    throw new AdminError(
      `no admin token: set GATEWAY_ADMIN_TOKEN or start the gateway once (it writes ${config.storage.data_dir}/${ADMIN_TOKEN_FILE})`,
    );
  }
  const host = config.admin.host === '0.0.0.0' ? '127.0.0.1' : config.admin.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${config.admin.port}`;
  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      let res: Response;
      try {
        res = await fetch(base + path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (e) {
        throw new AdminError(
          `cannot reach the gateway's admin API at ${base}: is the gateway running? (${String((e as Error).cause ?? e)})`,
        );
      }
      const payload = (await res.json()) as T & { error?: { message: string } };
      if (!res.ok) throw new AdminError(payload.error?.message ?? `admin API answered ${res.status}`);
      return payload;
    },
  };
}
