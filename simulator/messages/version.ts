import type { IncomingHttpHeaders } from 'node:http';
import { SimErrors } from '../sim-error';

/** Where the vendor has `anthropic-version`; the one version docs/upstreams.md#modeld documents. */
const VERSION_HEADER = 'modeld-version';
const VERSION = '2023-06-01';

/**
 * The version header every route of the family asks for, checked after auth as the vendor does.
 * @throws SimError 400 when it is missing or names another version.
 */
export function checkVersion(headers: IncomingHttpHeaders): void {
  const version = headers[VERSION_HEADER];
  if (version === undefined) {
    throw SimErrors.invalidParam(VERSION_HEADER, `${VERSION_HEADER}: header is required`);
  }
  if (version !== VERSION) {
    const why = `${VERSION_HEADER}: ${JSON.stringify(version)} is not a valid version (use ${VERSION})`;
    throw SimErrors.invalidParam(VERSION_HEADER, why);
  }
}
