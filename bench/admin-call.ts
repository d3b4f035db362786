/** One call of a benchmarked gateway's admin API, for set-up; any answer but 2xx throws with its body. */
export async function adminCall(
  adminUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<string> {
  const res = await fetch(adminUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text;
}

/** Where a benchmarked gateway's admin API listens and the token it takes. */
export interface AdminApi {
  readonly url: string;
  readonly token: string;
}

/** adminCall, its answer read as the JSON the route is documented to answer. */
export async function adminJson<T>(api: AdminApi, method: string, path: string, body?: unknown): Promise<T> {
  return JSON.parse(await adminCall(api.url, api.token, method, path, body)) as T;
}
