/** The values of a route's `{name}` segments, by name. */
export type RouteParams = Readonly<Record<string, string>>;

/** A route that matched: its handler and the values of its `{name}` segments. */
export interface RouteMatch<H> {
  readonly handler: H;
  readonly params: RouteParams;
}

/** A route with `{name}` segments, split for matching. */
interface Pattern<H> {
  readonly method: string;
  readonly segments: readonly string[];
  readonly handler: H;
}

const NO_PARAMS: RouteParams = Object.freeze({});
const PARAM = /^\{(\w+)\}$/;

/** A path segment as sent, percent-decoded; left raw when it is not valid percent-encoding. */
function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function matchPattern<H>(p: Pattern<H>, method: string, segments: readonly string[]): RouteMatch<H> | null {
  if (p.method !== method || p.segments.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const want = p.segments[i] ?? '';
    const got = segments[i] ?? '';
    const name = PARAM.exec(want)?.[1];
    if (name === undefined ? want !== got : got === '') return null;
    if (name !== undefined) params[name] = decodeSegment(got);
  }
  return { handler: p.handler, params };
}

/**
 * Routes keyed `METHOD /path`, where a `{name}` segment matches any one non-empty path segment
 * (`GET /api/v1/tasks/{task_id}`). A route without parameters is one map lookup and wins over the
 * patterns, so the chat hot path pays nothing for them and `/tasks/stats` beats `/tasks/{id}`.
 */
export class RouteTable<H> {
  private readonly exact = new Map<string, H>();
  private readonly patterns: Pattern<H>[] = [];

  constructor(routes: Readonly<Record<string, H>>) {
    for (const [key, handler] of Object.entries(routes)) {
      const space = key.indexOf(' ');
      const path = key.slice(space + 1);
      if (!path.includes('{')) this.exact.set(key, handler);
      else this.patterns.push({ method: key.slice(0, space), segments: path.split('/'), handler });
    }
  }

  /** The route for `method` and `path` (no query string), or undefined. */
  match(method: string, path: string): RouteMatch<H> | undefined {
    const handler = this.exact.get(`${method} ${path}`);
    if (handler !== undefined) return { handler, params: NO_PARAMS };
    if (this.patterns.length === 0) return undefined;
    const segments = path.split('/');
    for (const p of this.patterns) {
      const found = matchPattern(p, method, segments);
      if (found) return found;
    }
    return undefined;
  }
}
