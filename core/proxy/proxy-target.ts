/**
 * What http-proxy-3 is given for an upstream URL, built once per URL object (a plugin's fixed URL is
 * one object for the life of the plugin). A target string, or a URL with a path, is parsed again by
 * http-proxy-3 on every request; a target that is only the origin, with the path sent as the request's
 * own url (the proxy runs with `toProxy`, which takes that url as it is), is parsed never.
 */

/** The origin's parts as http-proxy-3 copies them into node:http's request options. */
export interface Origin {
  readonly protocol: string;
  readonly host: string;
  readonly hostname: string;
  readonly port: number;
}

export interface ProxyTarget {
  readonly origin: Origin;
  /** Path and query of the upstream URL. */
  readonly path: string;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

const targets = new WeakMap<URL, ProxyTarget>();

function buildTarget(url: URL): ProxyTarget {
  return {
    origin: {
      protocol: url.protocol,
      host: url.hostname,
      hostname: url.hostname,
      port: url.port === '' ? (DEFAULT_PORTS[url.protocol] ?? 80) : Number(url.port),
    },
    path: `${url.pathname}${url.search}`,
  };
}

/** The target of `url`, from the cache when this URL object was seen before. */
export function proxyTarget(url: URL): ProxyTarget {
  let target = targets.get(url);
  if (!target) targets.set(url, (target = buildTarget(url)));
  return target;
}
