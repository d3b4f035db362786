/** Reading one cookie from a request and writing `Set-Cookie` values, with the flags spelled out. */

export interface CookieFlags {
  readonly path: string;
  readonly sameSite: 'Strict' | 'Lax';
  /** Sent only over https: set when the console's address (redirect_uri) is https. */
  readonly secure: boolean;
}

/** The value of cookie `name` in a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq !== -1 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/** A `Set-Cookie` value: always HttpOnly, living `maxAgeMs` (0 clears it). */
export function setCookie(name: string, value: string, maxAgeMs: number, flags: CookieFlags): string {
  return [
    `${name}=${value}`,
    `Path=${flags.path}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`,
    'HttpOnly',
    `SameSite=${flags.sameSite}`,
    ...(flags.secure ? ['Secure'] : []),
  ].join('; ');
}

export const clearCookie = (name: string, flags: CookieFlags): string => setCookie(name, '', 0, flags);
