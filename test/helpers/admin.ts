/** Admin API calls for tests: any method, a bearer token, a JSON body; the answer parsed. */
import { EmbeddedTeamStore } from '../../core/stores/embedded/embedded-team-store';
import { tempDir, type Teardown, type TestGateway } from './gateway';

export interface AdminAnswer<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
}

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly type: string };
}

/** Calls the admin API of `gw` as `token` (none: no Authorization header). */
export async function adminCall<T = Record<string, unknown>>(
  gw: TestGateway,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<AdminAnswer<T>> {
  const res = await fetch(`${gw.gateway.adminUrl}${path}`, {
    method,
    headers: {
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, text };
}

/** Makes an admin token with `POST /admin/tokens` as the bootstrap token; resolves with the token. */
export async function makeAdminToken(
  gw: TestGateway,
  spec: { role: string; team_id?: string; description?: string },
): Promise<string> {
  const made = await adminCall<{ token: string }>(gw, gw.gateway.adminToken, 'POST', '/admin/tokens', spec);
  if (made.status !== 201) throw new Error(`token not made: ${made.status} ${made.text}`);
  return made.body.token;
}

/** Teams as the tests have them: the ones named exist. */
export const teamsNamed =
  (...ids: string[]) =>
  (id: string): Promise<boolean> =>
    Promise.resolve(ids.includes(id));

/**
 * A team store holding teams with exactly these ids (the admin API would make random ones), for a
 * gateway's `teamStore`: keys in them work on the request path, and admin tokens may name them.
 */
export async function teamStoreWith(t: Teardown, ...ids: string[]): Promise<EmbeddedTeamStore> {
  const store = await EmbeddedTeamStore.open(await tempDir(t));
  t.teardown(() => store.close());
  for (const id of ids) {
    await store.insert({
      id,
      name: id,
      allowed_models: [],
      metadata: {},
      created_at: new Date().toISOString(),
    });
  }
  return store;
}
