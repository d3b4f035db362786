/** Model-id patterns as gateway.yaml writes them. */

/** `modelc-*` style patterns: `*` matches any run of characters. */
export function globMatch(pattern: string, id: string): boolean {
  if (!pattern.includes('*')) return pattern === id;
  const escaped = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(id);
}
