/** Model-id patterns as gateway.yaml writes them. */

/** `pattern` compiled once, for a stage that tests ids against it on every request. */
export function globMatcher(pattern: string): (id: string) => boolean {
  if (pattern === '*') return () => true;
  if (!pattern.includes('*')) return (id) => id === pattern;
  const escaped = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  const compiled = new RegExp(`^${escaped.join('.*')}$`);
  return (id) => compiled.test(id);
}

/** `modelc-*` style patterns: `*` matches any run of characters. Compiles `pattern` on each call. */
export const globMatch = (pattern: string, id: string): boolean => globMatcher(pattern)(id);
