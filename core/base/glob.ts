/** Model-id patterns as gateway.yaml writes them. */

/** `modelc-*` style patterns: `*` matches any run of characters. */
export function globMatch(pattern: string, id: string): boolean {
  if (!pattern.includes('*')) return pattern === id;
  const escaped = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(id);
}

/** `pattern` compiled once, for a stage that tests ids against it on every request. */
export function globMatcher(pattern: string): (id: string) => boolean {
  if (pattern === '*') return () => true;
  if (!pattern.includes('*')) return (id) => id === pattern;
  const escaped = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  const compiled = new RegExp(`^${escaped.join('.*')}$`);
  return (id) => compiled.test(id);
}
