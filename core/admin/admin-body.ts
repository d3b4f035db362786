/** An admin request's JSON body: at most 64 KiB, read within 30 s; an empty body is `{}`. */
import type { IncomingMessage } from 'node:http';
import { Errors } from '../base/errors';
import { bodyReader } from '../http/body';

const readAdminBody = bodyReader({ maxBytes: 64 * 1024, idleMs: 10_000, totalMs: 30_000 });

export async function readAdminJson(req: IncomingMessage): Promise<unknown> {
  const text = (await readAdminBody(req)).toString('utf8') || '{}';
  try {
    return JSON.parse(text);
  } catch (e) {
    throw Errors.invalidJson((e as Error).message);
  }
}
