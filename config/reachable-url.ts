/**
 * Whether a URL gateway.yaml gives a plugin (a guardrail's webhook, an MCP server) could be reached at
 * all: caught at load rather than as every call's failure.
 * Reserved names (RFC 2606/6761: `.invalid`, `.example`, `.test`) and port 0 never answer.
 */
const RESERVED = /(^|\.)(invalid|example|test)$/i;

export interface UrlRules {
  /**
   * Port 0 is taken for "not placed yet": the bundled simulator's port when the system picks it (the
   * file is read again once it has), so a URL built from that port is not refused.
   */
  readonly portZero?: 'refuse' | 'allow';
}

export function urlProblem(raw: string, { portZero = 'refuse' }: UrlRules = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `'${raw}' is not an absolute URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must be http or https, not ${url.protocol}`;
  if (url.hostname === '') return 'has no host';
  if (RESERVED.test(url.hostname)) return `names the reserved host '${url.hostname}', which never answers`;
  if (url.port === '0' && portZero === 'refuse') return 'names port 0, which never answers';
  if (url.username || url.password) return 'must not carry credentials: give them in `headers`';
  return undefined;
}
