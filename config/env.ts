/**
 * `${VAR}` and `${VAR:-default}` substitution in configuration strings, map keys included (a header
 * name under `submit_headers:` may come from the environment too).
 * Substitution happens on parsed YAML scalars, never on the raw text, so a value can not inject YAML structure.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/** Thrown for a `${VAR}` whose variable is unset and that has no default. */
export class MissingVariableError extends Error {
  constructor(readonly variable: string) {
    super(`environment variable ${variable} is not set and has no default`);
  }
}

/** One `${NAME}` or `${NAME:-default}` in a text, `end` past its closing brace. */
interface Reference {
  readonly name: string;
  readonly fallback: string | undefined;
  readonly start: number;
  readonly end: number;
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

/**
 * The outermost references of a text. A default may hold references of its own
 * (`${MODELA_BASE_URL:-http://127.0.0.1:${SIMULATOR_PORT:-9100}/modela/v1}`), read only when it is used.
 */
function references(text: string): Reference[] {
  const found: Reference[] = [];
  for (let i = text.indexOf('${'); i !== -1; i = text.indexOf('${', i)) {
    const reference = readReference(text, i);
    found.push(...(reference ? [reference] : []));
    i = reference ? reference.end : i + 2;
  }
  return found;
}

/** The reference starting at `start`, or undefined when the text there is not one (it stays as written). */
function readReference(text: string, start: number): Reference | undefined {
  NAME.lastIndex = start + 2;
  const name = NAME.exec(text)?.[0];
  if (!name) return undefined;
  const after = NAME.lastIndex;
  if (text[after] === '}') return { name, fallback: undefined, start, end: after + 1 };
  if (!text.startsWith(':-', after)) return undefined;
  const close = closingBrace(text, after + 2);
  if (close === -1) return undefined;
  return { name, fallback: text.slice(after + 2, close), start, end: close + 1 };
}

/** The `}` that ends a default, past any whole `${…}` inside it; -1 when there is none. */
function closingBrace(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text.startsWith('${', i)) {
      depth++;
      i++;
    } else if (text[i] === '}') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Replaces every reference in `text`; an empty variable counts as unset when a default is given, as in POSIX shells. */
export function interpolate(text: string, env: Env): string {
  let out = '';
  let last = 0;
  for (const reference of references(text)) {
    out += text.slice(last, reference.start) + valueOf(reference, env);
    last = reference.end;
  }
  return out + text.slice(last);
}

function valueOf({ name, fallback }: Reference, env: Env): string {
  const value = env[name];
  if (value !== undefined && (value !== '' || fallback === undefined)) return value;
  if (fallback !== undefined) return interpolate(fallback, env);
  throw new MissingVariableError(name);
}

/**
 * The variables that set a string, outermost only (`${A}/${B:-${C}}` → A, B): a variable inside a
 * default feeds the default, and setting the outer one is what replaces it.
 */
export function referencedVariables(text: string): string[] {
  return references(text).map((r) => r.name);
}

/** What a walk reports: a failure at a path, and which variables fed the string at a path. */
export interface InterpolationHooks {
  onError(path: string, e: Error): void;
  onVariables?(path: string, variables: readonly string[]): void;
}

/**
 * Walks a parsed YAML document and interpolates every string and map key; `path` names the place of a
 * failure. A failing string is left as written and the walk goes on, so every failure is reported.
 */
export function interpolateTree(node: unknown, env: Env, path: string, hooks: InterpolationHooks): unknown {
  if (typeof node === 'string') return interpolateAt(node, env, path, hooks);
  if (Array.isArray(node)) return node.map((item, i) => interpolateTree(item, env, `${path}[${i}]`, hooks));
  if (node !== null && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [rawKey, value] of Object.entries(node)) {
      const key = interpolateAt(rawKey, env, path ? `${path}.${rawKey}` : rawKey, hooks);
      const at = path ? `${path}.${key}` : key;
      if (Object.hasOwn(out, key)) hooks.onError(at, new Error(`the key "${rawKey}" names "${key}" twice`));
      out[key] = interpolateTree(value, env, at, hooks);
    }
    return out;
  }
  return node;
}

function interpolateAt(text: string, env: Env, path: string, hooks: InterpolationHooks): string {
  const variables = referencedVariables(text);
  if (variables.length === 0) return text;
  hooks.onVariables?.(path, variables);
  try {
    return interpolate(text, env);
  } catch (e) {
    hooks.onError(path, e as Error);
    return text;
  }
}
