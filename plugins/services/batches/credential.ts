/**
 * The key a batch's lines are sent with: the one that created it, as the client presented it, kept
 * sealed in the batch (only the gateway's instances can open it), so each line passes the same auth,
 * limits and metering as the key's own calls, and a key revoked meanwhile stops its batch's lines.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The Sealer purpose of a batch's credential. */
export const CREDENTIAL = 'batch-credential';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The key the client presented (`Authorization: Bearer` or `x-api-key`), if any. */
export function presentedCredential(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (authorization) return BEARER.exec(authorization)?.[1];
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}
