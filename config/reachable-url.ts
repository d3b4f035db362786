/**
 * Whether a URL gateway.yaml gives a plugin (a guardrail's webhook, an MCP server) could be reached at
 * all: caught at load rather than as every call's failure.
 * Reserved names (RFC 2606/6761: `.invalid`, `.example`, `.test`) and port 0 never answer.
 */
const RESERVED = /(^|\.)(invalid|example|test)$/i;

export function urlProblem(raw: string): string | undefined {
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
  if (url.port === '0') return 'names port 0, which never answers';
  if (url.username || url.password) return 'must not carry credentials: give them in `headers`';
  return undefined;
}
