/**
 * Enough of a browser for sign-in flows over fetch: a cookie jar (by host name, not port, as browsers
 * keep them; paths honoured; `Max-Age=0` removes) and redirects followed by hand, since fetch's own
 * following would neither send nor keep cookies.
 */

interface Cookie {
  readonly host: string;
  readonly path: string;
  readonly name: string;
  readonly value: string;
}

export class CookieJar {
  private readonly cookies = new Map<string, Cookie>();

  /** One request with the jar's cookies for `url`; the answer's cookies are kept. Never follows redirects. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = this.header(url);
    const headers = new Headers(init.headers);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.keep(url, res.headers.getSetCookie());
    return res;
  }

  /** The `Cookie` header a browser would send to `url`. */
  header(url: string): string {
    const { hostname, pathname } = new URL(url);
    return [...this.cookies.values()]
      .filter(
        (c) =>
          c.host === hostname && (pathname === c.path || pathname.startsWith(c.path.replace(/\/?$/, '/'))),
      )
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** The value of cookie `name` for `url`'s host, if any. */
  get(url: string, name: string): string | undefined {
    const host = new URL(url).hostname;
    return [...this.cookies.values()].find((c) => c.host === host && c.name === name)?.value;
  }

  /** Sets a cookie as a page script or a tamperer would (path `/`). */
  set(url: string, name: string, value: string): void {
    const host = new URL(url).hostname;
    this.cookies.set(`${host} / ${name}`, { host, path: '/', name, value });
  }

  private keep(url: string, lines: readonly string[]): void {
    const { hostname, pathname } = new URL(url);
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const attribute = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      // Without a Path attribute, the folder of the URL that set it.
      const path = attribute('path') || pathname.replace(/\/[^/]*$/, '') || '/';
      const id = `${hostname} ${path} ${name}`;
      const gone = attribute('max-age') === '0' || /expires=Thu, 01 Jan 1970/i.test(line);
      if (gone) this.cookies.delete(id);
      else this.cookies.set(id, { host: hostname, path, name, value: pair.slice(eq + 1) });
    }
  }
}

/** Where a redirect answer points, resolved against the URL it came from; undefined for any other answer. */
export const redirectedTo = (from: string, res: Response): string | undefined => {
  const location = res.headers.get('location');
  return res.status >= 300 && res.status < 400 && location ? new URL(location, from).href : undefined;
};
