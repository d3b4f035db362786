/**
 * Every call the console makes goes through here: the admin token, held only in this tab's
 * sessionStorage, travels as `Authorization: Bearer` (never in a URL or a cookie). A 401 signs out.
 * What each call answers is typed by core/admin/wire.ts, the server's own statement of its answers.
 */
const TOKEN_KEY = 'gateway-admin-token';
const SIGNED_OUT = 'console:signed-out';

export const token = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const saveToken = (value: string): void => sessionStorage.setItem(TOKEN_KEY, value);

export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  window.dispatchEvent(new Event(SIGNED_OUT));
}

export const onSignedOut = (fn: () => void): (() => void) => {
  window.addEventListener(SIGNED_OUT, fn);
  return () => window.removeEventListener(SIGNED_OUT, fn);
};

/** An API error with the gateway's message (`error.message` of the contract's error body). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the admin API with `bearer` (default: the saved token); JSON in, JSON out. */
export async function api<T>(method: string, path: string, body?: unknown, bearer = token()): Promise<T> {
  const res = await fetch(path, {
    method,
    cache: 'no-store',
    credentials: 'omit',
    headers: {
      authorization: `Bearer ${bearer ?? ''}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const data = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
  if (res.status === 401) {
    if (bearer === token()) signOut();
    throw new ApiError(401, 'The admin token was refused.');
  }
  if (!res.ok) throw new ApiError(res.status, data.error?.message ?? `HTTP ${res.status}`);
  return data as T;
}
