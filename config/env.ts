/**
 * `${VAR}` and `${VAR:-default}` substitution in configuration strings.
 * Substitution happens on parsed YAML scalars, never on the raw text, so a value can not inject YAML structure.
 */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Env = Readonly<Record<string, string | undefined>>;

/** Thrown for a `${VAR}` whose variable is unset and that has no default. */
export class MissingVariableError extends Error {
  constructor(readonly variable: string) {
    super(`environment variable ${variable} is not set and has no default`);
  }
}

/** Replaces every reference in `text`; an empty variable counts as unset when a default is given, as in POSIX shells. */
export function interpolate(text: string, env: Env): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && (value !== '' || fallback === undefined)) return value;
    if (fallback !== undefined) return fallback;
    throw new MissingVariableError(name);
  });
}

/** Walks a parsed YAML document and interpolates every string; `path` names the place of a failure. */
export function interpolateTree(
  node: unknown,
  env: Env,
  path: string,
  onError: (path: string, e: Error) => never,
): unknown {
  if (typeof node === 'string') {
    try {
      return interpolate(node, env);
    } catch (e) {
      return onError(path, e as Error);
    }
  }
  if (Array.isArray(node)) return node.map((item, i) => interpolateTree(item, env, `${path}[${i}]`, onError));
  if (node !== null && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = interpolateTree(value, env, path ? `${path}.${key}` : key, onError);
    }
    return out;
  }
  return node;
}
