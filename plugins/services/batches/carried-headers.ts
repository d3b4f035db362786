/**
 * The headers of a batch's creating request that its lines carry, as the same call from the client
 * would: the API's version and beta flags (`modeld-version`, `anthropic-beta`, `openai-beta`), which
 * decide how a vendor reads a request. Credentials and transport headers stay behind.
 */
import type { IncomingHttpHeaders } from 'node:http';

const CARRIED = /-(version|beta)$/;

export function carriedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const carried: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (CARRIED.test(name) && typeof value === 'string') carried[name] = value;
  return carried;
}
