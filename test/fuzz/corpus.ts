/**
 * test/fuzz/corpus.json: the failing cases found so far, each the concrete request (method, path,
 * headers, body as base64) with the failure class it showed. Every entry is replayed on every run.
 * `fixed: false` marks a failure the gateway still has: its replay is a todo, and the properties do not
 * fail again on that class (FUZZ_STRICT=1 makes them). Flip it to `true` once the gateway is fixed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import type { Api, Auth, Expect, FuzzCase, Violation } from './harness';

export interface CorpusEntry {
  /** `<property>/<kind>`, e.g. `5xx/bad-percent`. */
  readonly class: string;
  readonly fixed: boolean;
  /** What was seen when the entry was added, and what the property expected instead. */
  readonly observed: string;
  readonly expected: string;
  readonly why: string;
  readonly api: Api;
  readonly kind: string;
  readonly expect: Expect;
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly headers: readonly (readonly [string, string])[];
    readonly auth: Auth;
    readonly chunked?: boolean;
    readonly rawSocket?: boolean;
    readonly noHost?: boolean;
    readonly requestIds?: readonly string[];
    /** null for no body. */
    readonly body_base64: string | null;
  };
}

/** The source file (tests run from dist/test/fuzz; the corpus stays in test/fuzz). */
export const CORPUS_FILE = join(__dirname, '..', '..', '..', 'test', 'fuzz', 'corpus.json');

export function loadCorpus(): CorpusEntry[] {
  return JSON.parse(readFileSync(CORPUS_FILE, 'utf8')) as CorpusEntry[];
}

export function caseOf(e: CorpusEntry): FuzzCase {
  const r = e.request;
  return {
    api: e.api,
    kind: e.kind,
    expect: e.expect,
    why: e.why,
    method: r.method,
    path: r.path,
    headers: r.headers,
    auth: r.auth,
    ...(r.chunked ? { chunked: true } : {}),
    ...(r.rawSocket ? { rawSocket: true } : {}),
    ...(r.noHost ? { noHost: true } : {}),
    ...(r.requestIds ? { requestIds: r.requestIds } : {}),
    body: r.body_base64 === null ? null : Buffer.from(r.body_base64, 'base64'),
  };
}

/** What each property expects, for the corpus entry's `expected`. */
const EXPECTED: Readonly<Record<string, string>> = {
  'no-answer': `an HTTP answer within the per-request timeout`,
  '5xx': 'a status below 500 (a 4xx for a bad request)',
  'upstream-5xx': 'no 5xx from the upstream for a body the gateway forwarded (a 4xx from the gateway first)',
  'error-shape':
    'exactly {"error":{"code":string,"message":string,"type":"error"}} with content-type application/json',
  'request-id': 'the x-request-id the client sent, echoed on the response',
  'upstream-called': 'no upstream call before a 4xx of the gateway’s own',
  'accepted-invalid': 'a 4xx in the contract’s error shape, and no upstream call',
  'forwarded-invalid': 'a 4xx from the gateway itself, without calling the upstream',
  'refused-valid': 'a 2xx: the contract calls this request valid',
  'prototype-polluted': 'Object.prototype untouched',
  'unauthorized-body': 'the contract’s 401 body, with code and message both unauthorized',
  'allow-header': 'a 405 with an Allow header',
};

export function entryFor(c: FuzzCase, v: Violation, status: number | null): CorpusEntry {
  const property = v.cls.split('/')[0]!;
  return {
    class: v.cls,
    fixed: false,
    observed: (status === null
      ? `no answer: ${v.message}`
      : v.message.startsWith('status')
        ? v.message
        : `status ${status}: ${v.message}`
    ).slice(0, 600),
    expected: EXPECTED[property] ?? property,
    why: c.why.slice(0, 300),
    api: c.api,
    kind: c.kind,
    expect: c.expect,
    request: {
      method: c.method,
      path: c.path,
      headers: c.headers,
      auth: c.auth,
      ...(c.chunked ? { chunked: true } : {}),
      ...(c.rawSocket ? { rawSocket: true } : {}),
      ...(c.noHost ? { noHost: true } : {}),
      ...(c.requestIds ? { requestIds: c.requestIds } : {}),
      body_base64: c.body === null ? null : c.body.toString('base64'),
    },
  };
}

/** Adds entries of classes the corpus does not hold yet (FUZZ_RECORD=1), formatted as `npm run lint` wants. */
export async function record(entries: readonly CorpusEntry[]): Promise<number> {
  const corpus = loadCorpus();
  const have = new Set(corpus.map((e) => e.class));
  const added = entries.filter((e) => !have.has(e.class) && have.add(e.class));
  if (!added.length) return 0;
  const options = (await resolveConfig(CORPUS_FILE)) ?? {};
  const text = await format(JSON.stringify([...corpus, ...added]), { ...options, filepath: CORPUS_FILE });
  writeFileSync(CORPUS_FILE, text);
  return added.length;
}
