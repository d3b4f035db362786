/**
 * (method, path) → handler, on find-my-way: Fastify's radix-tree router, compiled to straight-line
 * code, so no caller hand-writes matching. `:name` is a parameter, a whole path segment; a static
 * segment beats a parameter at the same place. `:name:verb` is a parameter followed by a literal `:verb`
 * in the same segment, as Google's APIs put a method after a resource (`/models/:model:generateContent`
 * finds `/models/gemini-2.5-flash:generateContent` with `model` = `gemini-2.5-flash`); routes that differ
 * only in the verb are different routes, and one ending in a verb beats a plain parameter in its place.
 *
 * Paths are matched as sent. find-my-way would decode the path before matching, cut it at `?` or `#`,
 * take an absolute URL and refuse a malformed escape outright; callers here match the raw path and each
 * decodes parameters by its own rules (one answers 400 to `%zz`, another keeps it as sent). So a path
 * with `%`, `#` or `?` reaches find-my-way escaped, and it decodes them back: parameters come out raw.
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way';

/** Parameter values by name, as sent (not percent-decoded). */
export type Params = Readonly<Record<string, string>>;

/** A route for the method and path: its handler and its parameters. */
export interface Found<H> {
  readonly handler: H;
  readonly params: Params;
}

/**
 * No route: `allowed` lists the methods that do have one for the path (empty: an unknown path), those of
 * routes without parameters first, each in the order added.
 */
export interface Missed {
  readonly allowed: readonly string[];
}

export interface RouterOptions {
  /** Repeated and trailing slashes are ignored: `//a//b/` finds `/a/b`. */
  readonly ignoreEmptySegments?: boolean;
}

/** What find-my-way stores per route. */
interface Route<H> {
  readonly method: string;
  readonly handler: H;
  readonly names: readonly string[];
  /** How many routes were added before it. */
  readonly seq: number;
  /** The path's length, for a route without parameters. */
  readonly length: number;
  /** The answer for a route without parameters, made once. */
  readonly found: Found<H>;
}

const NO_PARAMS: Params = Object.freeze({});
const SLASH = 47;
/** `:name`, or `:name:verb`: a parameter, then a literal `:verb` closing the segment. */
const PARAM = /^:([A-Za-z_]\w*)(?::([A-Za-z_]\w*))?$/;
/**
 * What find-my-way reads in a route's path as a wildcard, a query or a fragment; and `%`, as a static
 * route with an escape in it could not be told from a path that decoded to it.
 */
const UNROUTABLE = /[*?#%]/;
const ESCAPED_FOR_FIND_MY_WAY = /[%#?]/;
/** find-my-way calls handlers itself in its other mode; here the handler lives in the route's store. */
const UNUSED = (): void => undefined;

type Tree = ReturnType<typeof FindMyWay>;

export class Router<H> {
  private readonly tree: Tree;
  private readonly methods = new Set<string>();
  private count = 0;

  constructor(options: RouterOptions = {}) {
    const lenient = options.ignoreEmptySegments ?? false;
    this.tree = FindMyWay({
      ignoreTrailingSlash: lenient,
      ignoreDuplicateSlashes: lenient,
      // Its default (100) would turn a long id into a 404.
      maxParamLength: Number.MAX_SAFE_INTEGER,
      // Callers pass the path only; an empty object spares a parse per lookup.
      querystringParser: () => NO_PARAMS,
    });
    this.tree.compile();
  }

  /** Adds a route; `path` is `/`-separated with `:name` parameters. Throws on a second route for both. */
  add(method: string, path: string, handler: H): this {
    const names = parameterNames(path);
    const pattern = path.split('/').map(toFindMyWay).join('/');
    if (this.tree.hasRoute(method as HTTPMethod, pattern))
      throw new Error(`two routes for ${method} ${path}`);
    const found: Found<H> = Object.freeze({ handler, params: NO_PARAMS });
    const route: Route<H> = { method, handler, names, seq: this.count++, length: path.length, found };
    this.tree.on(method as HTTPMethod, pattern, UNUSED, route);
    this.methods.add(method);
    return this;
  }

  /** The route for `method` and `path` (a path only: no query string), or which methods the path has. */
  find(method: string, path: string): Found<H> | Missed {
    return this.lookup(method, path) ?? { allowed: this.allowed(method, path) };
  }

  private lookup(method: string, path: string): Found<H> | undefined {
    const found = this.resolve(method, path);
    return found === null ? undefined : withParams(found.store as Route<H>, found.params);
  }

  /**
   * find-my-way's answer for the path as sent. The plain path first: a static route found for a path of
   * its own length is that path exactly, and without `%`, `#` or `?` the path needs no escaping.
   */
  private resolve(method: string, path: string): ReturnType<Tree['find']> {
    if (path.charCodeAt(0) !== SLASH) return null;
    const plain = this.tree.find(method as HTTPMethod, path);
    const route = plain?.store as Route<H> | undefined;
    if (route?.names.length === 0 && route.length === path.length) return plain;
    return ESCAPED_FOR_FIND_MY_WAY.test(path)
      ? this.tree.find(method as HTTPMethod, escapePath(path))
      : plain;
  }

  /** Routes without parameters first, then in the order added: the order a fixed table would list them. */
  private allowed(method: string, path: string): string[] {
    const routes: Route<H>[] = [];
    for (const other of this.methods) {
      const found = other === method ? null : this.resolve(other, path);
      const route = found?.store as Route<H> | undefined;
      if (found && route && withParams(route, found.params)) routes.push(route);
    }
    return routes.sort(byRank).map((route) => route.method);
  }
}

const byRank = <H>(a: Route<H>, b: Route<H>): number =>
  Number(a.names.length > 0) - Number(b.names.length > 0) || a.seq - b.seq;

/** The route's answer; an empty segment never fills a parameter (`/tasks/` is not `/tasks/:id`). */
function withParams<H>(route: Route<H>, raw: Partial<Record<string, string>>): Found<H> | undefined {
  if (route.names.length === 0) return route.found;
  const params = raw as Record<string, string>;
  for (const name of route.names) if (params[name] === '') return undefined;
  return { handler: route.handler, params };
}

/** A route's parameter names; throws for a path find-my-way would read other than as written. */
function parameterNames(path: string): string[] {
  if (path.charCodeAt(0) !== SLASH || UNROUTABLE.test(path)) {
    throw new Error(`the route path '${path}' must start with / and hold no *, ?, # or %`);
  }
  const names: string[] = [];
  for (const segment of path.split('/')) {
    if (!segment.startsWith(':')) continue;
    const name = PARAM.exec(segment)?.[1];
    if (name === undefined) throw new Error(`the route path '${path}' has a bad parameter '${segment}'`);
    names.push(name);
  }
  return names;
}

/**
 * A segment as find-my-way reads it. A `:` inside a static segment is literal, which find-my-way wants
 * doubled. A parameter with a verb becomes a regex parameter (`(.+)`: at least one character, the last
 * `:verb` left to the suffix) followed by the literal `::verb`, so find-my-way anchors both ends.
 */
function toFindMyWay(segment: string): string {
  if (!segment.startsWith(':')) return segment.replaceAll(':', '::');
  const [, name, verb] = PARAM.exec(segment) ?? [];
  return verb === undefined ? segment : `:${name}(.+)::${verb}`;
}

/** The path with `%`, `#` and `?` escaped, which find-my-way decodes back to the path as sent. */
const escapePath = (path: string): string =>
  path.replaceAll('%', '%25').replaceAll('#', '%23').replaceAll('?', '%3F');
