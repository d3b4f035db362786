/** Assertions on the contract's error body. */
import type { Test } from 'tap';
import type { JsonResponse } from './http';

/** Asserts the contract's error body, exactly `{error:{code,message,type:"error"}}`, with its status and code. */
export function isError(
  t: Test,
  res: JsonResponse,
  status: number,
  code: string,
  ...mentions: string[]
): void {
  t.equal(res.status, status, `status ${status}`);
  t.equal(res.headers.get('content-type'), 'application/json');
  // `?? {}`: a wrong answer fails these assertions instead of throwing and hiding the cases after it.
  t.strictSame(Object.keys(res.body ?? {}), ['error'], 'only an error key');
  const error = (res.body?.error ?? {}) as Record<string, unknown>;
  t.strictSame(Object.keys(error).sort(), ['code', 'message', 'type'], 'code, message, type');
  t.equal(error.code, code);
  t.equal(error.type, 'error');
  for (const m of mentions)
    t.ok(String(error.message).includes(m), `message names ${m}: ${String(error.message)}`);
}
