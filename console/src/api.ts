/**
 * Every call the console makes goes through here: the admin token, held only in this tab's
 * sessionStorage, travels as `Authorization: Bearer` (never in a URL or a cookie). A 401 signs out.
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

/** A key as the admin API shows it (never a hash). */
export interface PublicKey {
  id: string;
  description: string;
  enabled: boolean;
  status: 'enabled' | 'disabled' | 'expired';
  allowed_models: string[];
  rate_limit_rpm?: number;
  rate_limit_tpm?: number;
  max_concurrent?: number;
  expires_at?: string;
  budget?: { amount_micros: number; period: 'total' | 'month' };
  created_at: string;
  /** Listings only: the key's latest call, and its spend in its budget period (its whole life without one). */
  last_used_at?: string | null;
  spent_micros?: number;
  spent_unknown_requests?: number;
}

/** POST /admin/keys and rotate: the only answers that carry a full key. */
export interface CreatedKey {
  key: string;
  record: PublicKey;
  replaces?: string;
}

export interface SummaryRow {
  key_id?: string | null;
  model?: string;
  period?: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number;
  cost_unknown_requests: number;
}

export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** A video task as GET /admin/tasks shows it. */
export interface TaskView {
  id: string;
  status: TaskStatus;
  model: string;
  key_id: string | null;
  protocol: string;
  upstream: string;
  upstream_task_id: string | null;
  created_at: string;
  finished_at: string | null;
  cost_micros: number | null;
  error: { code: string; message: string } | null;
  video_url: string | null;
  params: { resolution?: string; duration_s?: number };
  usage: { video_seconds?: number; tokens?: number; resolution?: string } | null;
  polls: number;
  request_id: string;
}

/** GET /admin/tasks/{id}: the view and every status the task has had. */
export interface TaskDetail extends TaskView {
  history: { status: TaskStatus; at: string }[];
}

/** A page of a server-paged listing. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
