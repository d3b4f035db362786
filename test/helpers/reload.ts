/**
 * A gateway started from a real gateway.yaml (so it can reload it), with the file's document at hand
 * to change and write again, and the admin calls the reload tests make.
 */
import { closedAtEnd, tempDir, testConfig, type ConfigDoc, type Teardown } from './gateway'; // first: it loads the plugins
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseConfigText, readConfigText } from '../../config/load';
import { startGateway, type RunningGateway } from '../../core/boot/gateway';
import { startSimulator, type RunningSimulator } from '../../simulator/server';

export interface FileGateway {
  readonly gateway: RunningGateway;
  readonly sim: RunningSimulator;
  readonly key: string;
  readonly url: string;
  readonly file: string;
  /** The document last written (a copy: change it and `write` it). */
  doc(): ConfigDoc;
  /** Writes `doc` as the file, atomically (a new file renamed over the old one). */
  write(doc: ConfigDoc): Promise<void>;
  /** Writes raw text as the file, atomically. */
  writeText(text: string): Promise<void>;
  admin(method: 'GET' | 'POST', path: string): Promise<{ status: number; body: AdminBody }>;
}

/** What GET /admin/config and POST /admin/reload answer (and the error body). */
export interface AdminBody {
  version?: string;
  hash?: string;
  applied?: boolean;
  reloads?: number;
  trigger?: string;
  watching?: boolean;
  restart_required?: string[];
  last_error?: { message: string; hash: string | null; trigger: string } | null;
  instances?: { instance: string; version: string; last_error: unknown }[];
  error?: { code: string; message: string; type: string };
}

export async function startFileGateway(
  t: Teardown,
  adjust: (doc: ConfigDoc, sim: RunningSimulator) => void = () => undefined,
): Promise<FileGateway> {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  const file = join(dir, 'gateway.yaml');
  let current = testConfig(sim.url, join(dir, 'data'));
  current.reload = { watch: false };
  adjust(current, sim);
  const writeText = async (text: string): Promise<void> => {
    const next = `${file}.${process.pid}.tmp`;
    await writeFile(next, text);
    await rename(next, file);
  };
  await writeText(stringify(current));
  const text = readConfigText(file);
  const env = {}; // the file alone decides, whatever this process's environment says
  const gateway = await startGateway(parseConfigText(text, file, env), {
    env,
    source: { file, hash: text.hash },
  });
  const key = await closedAtEnd(t, gateway);
  return {
    gateway,
    sim,
    key,
    url: gateway.url,
    file,
    doc: () => structuredClone(current),
    write: async (doc) => {
      current = structuredClone(doc);
      await writeText(stringify(doc));
    },
    writeText,
    admin: (method, path) => adminCall(gateway, method, path),
  };
}

/** Where an admin API is and its token: a gateway in this process, or one in a child process. */
export type AdminAt = Pick<RunningGateway, 'adminUrl' | 'adminToken'>;

/** One admin API call with the token; the answer's status and JSON body. */
export async function adminCall<T = AdminBody>(
  at: AdminAt,
  method: 'GET' | 'POST',
  path: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${at.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${at.adminToken}` },
  });
  return { status: res.status, body: (await res.json()) as T };
}
