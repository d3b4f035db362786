/**
 * Every call the console makes goes through here, signed in one of two ways. With the admin token,
 * held only in this tab's sessionStorage, as `Authorization: Bearer` (never in a URL or a cookie). Or
 * with a single sign-on session: an HttpOnly cookie the browser sends by itself, and the session's
 * CSRF token, held in memory only, on every changing call. A 401 signs out.
 * What each call answers is typed by core/admin/wire.ts, the server's own statement of its answers.
 */
import type { Caller, ConsoleSession, SignOnOffer, WhoAmI } from '../../core/admin/wire';

const TOKEN_KEY = 'gateway-admin-token';
const SIGNED_OUT = 'console:signed-out';
const READING = new Set(['GET', 'HEAD']);

/** The single sign-on session, when signed in that way (read again from the server on each load). */
let session: ConsoleSession | null = null;
/** Who is signed in, as the gateway judged the token or the session; null when signed out. */
let signedIn: Caller | null = null;

export const token = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const saveToken = (value: string): void => sessionStorage.setItem(TOKEN_KEY, value);
/** The caller signed in (token or person), with its role; null before sign-in. */
export const caller = (): Caller | null => signedIn;

/** Forgets the credentials in this tab; the views go back to the sign-in page. */
function forget(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  session = null;
  signedIn = null;
  window.dispatchEvent(new Event(SIGNED_OUT));
}

/**
 * Asks the gateway who `bearer` is (default: the saved token, else the session) and keeps the answer:
 * the console offers only what that role may do. Throws as `api` does (401: the token was refused).
 */
export async function identify(bearer = token()): Promise<Caller> {
  signedIn = (await api<WhoAmI>('GET', '/admin/whoami', undefined, bearer)).actor;
  return signedIn;
}

/** Signs out: the token is forgotten; a single sign-on session is also ended on the gateway. */
export async function signOut(): Promise<void> {
  const ending = session;
  forget();
  if (!ending) return;
  await fetch('/auth/logout', {
    method: 'POST',
    cache: 'no-store',
    credentials: 'same-origin',
    headers: { 'x-csrf-token': ending.csrf_token },
  }).catch(() => undefined);
}

export const onSignedOut = (fn: () => void): (() => void) => {
  window.addEventListener(SIGNED_OUT, fn);
  return () => window.removeEventListener(SIGNED_OUT, fn);
};

/** Whether the gateway offers single sign-on (`GET /auth/config`, public). */
export async function signOnOffered(): Promise<boolean> {
  const res = await fetch('/auth/config', { cache: 'no-store', credentials: 'omit' }).catch(() => null);
  return res?.ok ? ((await res.json()) as SignOnOffer).sso : false;
}

/** Takes up the single sign-on session the browser's cookie holds; false when there is none. */
export async function resumeSession(): Promise<boolean> {
  const res = await fetch('/admin/session', { cache: 'no-store', credentials: 'same-origin' });
  session = res.ok ? ((await res.json()) as ConsoleSession) : null;
  signedIn = session?.actor ?? null;
  return session !== null;
}

/** An API error with the gateway's message (`error.message` of the contract's error body). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The token as a bearer header; else, on a session, its CSRF token on a changing call. */
function credentials(method: string, bearer: string | null): Record<string, string> {
  if (bearer !== null) return { authorization: `Bearer ${bearer}` };
  return session && !READING.has(method) ? { 'x-csrf-token': session.csrf_token } : {};
}

/** Calls the admin API with `bearer` (default: the saved token), else the session; JSON in, JSON out. */
export async function api<T>(method: string, path: string, body?: unknown, bearer = token()): Promise<T> {
  const res = await fetch(path, {
    method,
    cache: 'no-store',
    // The session's cookie goes only where no token is used: a token call carries nothing ambient.
    credentials: bearer === null ? 'same-origin' : 'omit',
    headers: {
      ...credentials(method, bearer),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const data = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
  if (res.status === 401) {
    if (bearer === token()) forget();
    throw new ApiError(
      401,
      bearer === null ? 'The session has ended; sign in again.' : 'The admin token was refused.',
    );
  }
  if (!res.ok) throw new ApiError(res.status, data.error?.message ?? `HTTP ${res.status}`);
  return data as T;
}
