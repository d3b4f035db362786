/**
 * Property-based tests of the request path (fast-check): generated requests against the real gateway and
 * the real simulator, in-process. For every case: an answer in time; never a 5xx (one from the upstream
 * counts only when the simulator logged the request, and is reported apart); a 4xx the gateway made
 * itself is exactly the contract's error body and no upstream call happened; a body the contract refuses
 * never reaches the upstream; one it calls valid is served. Afterwards the gateway still serves a valid
 * request.
 *
 * FUZZ_RUNS=n        cases per property (the defaults, 4,000 cases in all, take about 15 s alone); long
 *                    runs need tap's file timeout off: FUZZ_RUNS=20000 npx tap -t0 dist/test/fuzz/…
 * FUZZ_SEED=s        replay a run (each property prints its seed); FUZZ_PATH=p with FUZZ_ONLY to go
 *                    straight to a counterexample
 * FUZZ_ONLY=name     run only the properties whose name contains `name`
 * FUZZ_STRICT=1      fail on known classes too (the corpus entries with `fixed: false`)
 * FUZZ_EXPLORE=1     do not stop at the first failure: collect every failure class, then shrink each
 * FUZZ_RECORD=1      add the shrunk counterexample of each new failure class to test/fuzz/corpus.json
 * FUZZ_TIMEOUT_MS=n  the per-request timeout (15 s)
 */
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { FAST_POLL, startTestGateway, type TestGateway } from '../helpers/gateway';
import { getJson } from '../helpers/http';
import { nearValid, randomBody } from './cases';
import { ALL_MODELS, MESSAGES_COLUMNS, MESSAGES_MODELS } from './contract';
import { caseOf, entryFor, loadCorpus, record, type CorpusEntry } from './corpus';
import {
  describe,
  pollution,
  run,
  upstreamRefusal,
  violations,
  type FuzzCase,
  type Observation,
  type Violation,
} from './harness';
import { urls } from './url-cases';

const env = process.env;
const RUNS = env.FUZZ_RUNS ? Number(env.FUZZ_RUNS) : undefined;
const STRICT = env.FUZZ_STRICT === '1';

/** Thrown by the property with what failed, so the report can name the class of the shrunk case. */
class CaseFailed extends Error {
  constructor(
    readonly fuzzCase: FuzzCase,
    readonly observation: Observation,
    readonly failed: readonly Violation[],
  ) {
    super(failed.map((v) => `${v.cls}: ${v.message}`).join('\n'));
  }
}

/** Counts across the run, printed at the end. */
const tally = {
  cases: 0,
  known: new Map<string, number>(),
  refusals: new Map<string, { count: number; example: string }>(),
  statuses: new Map<number | string, number>(),
};
const bump = <K>(m: Map<K, number>, k: K): void => void m.set(k, (m.get(k) ?? 0) + 1);

const EXPLORE = env.FUZZ_EXPLORE === '1';
const corpus = loadCorpus();
const knownOpen = new Set(STRICT ? [] : corpus.filter((e) => !e.fixed).map((e) => e.class));
const newEntries: CorpusEntry[] = [];

/** Every failure class seen, with how often (known open ones included). */
const seen = new Map<string, number>();

/** Sends the case and judges it; throws for the violations `failOn` picks. */
async function check(c: FuzzCase, gw: TestGateway, failOn: (v: Violation) => boolean): Promise<void> {
  const o = await run(gw, c);
  tally.cases++;
  bump(tally.statuses, o.answer.status ?? 'none');
  const all = violations(c, o);
  for (const v of all) {
    bump(seen, v.cls);
    if (knownOpen.has(v.cls)) bump(tally.known, v.cls);
  }
  const refusal = upstreamRefusal(c, o);
  if (refusal) {
    const had = tally.refusals.get(c.kind);
    tally.refusals.set(c.kind, { count: (had?.count ?? 0) + 1, example: had?.example ?? refusal });
  }
  const failed = all.filter(failOn);
  if (failed.length) throw new CaseFailed(c, o, failed);
}

interface PropertySpec {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<FuzzCase>;
  readonly runs: number;
}

const PROPERTIES: readonly PropertySpec[] = [
  { name: 'chat', arbitrary: nearValid('chat'), runs: 1000 },
  { name: 'messages', arbitrary: nearValid('messages'), runs: 700 },
  { name: 'images', arbitrary: nearValid('images'), runs: 400 },
  { name: 'video', arbitrary: nearValid('video'), runs: 600 },
  { name: 'random bodies', arbitrary: randomBody, runs: 500 },
  { name: 'urls and methods', arbitrary: urls, runs: 800 },
];

/** A failed check as a test failure with its seed, path, smallest case and corpus entry. */
function report(t: Test, name: string, seed: number, details: fc.RunDetails<[FuzzCase]>): void {
  if (!details.failed) return void t.pass(`${details.numRuns} cases, every property held`);
  const error = details.errorInstance;
  if (!(error instanceof CaseFailed)) return void t.fail(`${name} failed (seed ${seed}): ${String(error)}`);
  const { fuzzCase, observation, failed } = error;
  const entries = failed.map((v) => entryFor(fuzzCase, v, observation.answer.status));
  newEntries.push(...entries);
  t.fail(`${name}: new failure class ${failed.map((v) => v.cls).join(', ')}`, {
    diagnostic: true,
    replay: `FUZZ_SEED=${seed} FUZZ_PATH=${details.counterexamplePath} FUZZ_ONLY='${name}'`,
    shrunk: `after ${details.numRuns} cases and ${details.numShrinks} shrinks`,
    case: describe(fuzzCase),
    violations: failed.map((v) => `${v.cls}: ${v.message}`),
    corpusEntry: JSON.stringify(entries[0]).slice(0, 4000),
  });
}

void t.test('the request path under generated requests', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    // Accepted video tasks are polled in the background; a slower poll keeps that load small.
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    for (const name of ['videoa-main', 'videob-main'])
      upstreams[name]!.poll = { ...FAST_POLL, every: '500ms', max_every: '2s' };
    // Generated requests fail authentication by the hundred from one address: not a flood to refuse here.
    doc.keys = { failed_auth_limit: 0 };
  });
  const started = Date.now();

  await t.test("the cases use the models the gateway serves, which are the contract's", async (t) => {
    const list = await getJson<{ data: { id: string }[] }>(`${gw.url}/v1/models`, gw.key);
    t.strictSame(list.body.data.map((m) => m.id).sort(), [...ALL_MODELS].sort(), 'GET /v1/models');
    t.strictSame([...MESSAGES_MODELS].sort(), [...MESSAGES_COLUMNS].sort(), 'the messages columns');
  });

  await t.test('corpus: every failing case found so far, replayed', async (t) => {
    for (const entry of corpus) {
      const c = caseOf(entry);
      const o = await run(gw, c);
      const found = violations(c, o).map((v) => `${v.cls}: ${v.message}`);
      // An entry not fixed yet is run all the same, as a todo: its failure does not fail the suite, and
      // a pass says the flag can be flipped.
      const extra = entry.fixed ? {} : { todo: 'not fixed yet (fixed: false in corpus.json)' };
      t.strictSame(found, [], `${entry.class}: ${entry.why} (expected: ${entry.expected})`, extra);
      if (!entry.fixed && found.length === 0) t.comment(`${entry.class} passes now: set fixed: true`);
    }
  });

  for (const p of PROPERTIES) {
    if (env.FUZZ_ONLY && !p.name.includes(env.FUZZ_ONLY)) continue;
    await t.test(`property: ${p.name}`, async (t) => {
      const seed = env.FUZZ_SEED ? Number(env.FUZZ_SEED) : Date.now() % 2 ** 31;
      const numRuns = RUNS ?? p.runs;
      const params = { seed, numRuns, ...(env.FUZZ_PATH ? { path: env.FUZZ_PATH } : {}) };
      const began = Date.now();
      const before = tally.cases;
      const property = (failOn: (v: Violation) => boolean) =>
        fc.asyncProperty(p.arbitrary, (c) => check(c, gw, failOn));
      if (!EXPLORE) {
        const details = await fc.check(
          property((v) => !knownOpen.has(v.cls)),
          params,
        );
        t.comment(`${p.name}: seed ${seed}, ${tally.cases - before} requests in ${Date.now() - began} ms`);
        report(t, p.name, seed, details);
        return;
      }
      // Explore: one pass that never stops, then one shrinking pass (same seed) per class it found.
      const classesBefore = new Set(seen.keys());
      await fc.check(
        property(() => false),
        params,
      );
      const fresh = [...seen.keys()].filter((cls) => !classesBefore.has(cls) && !knownOpen.has(cls));
      t.comment(
        `${p.name}: seed ${seed}, ${tally.cases - before} requests; new classes: ${fresh.join(', ') || 'none'}`,
      );
      for (const cls of fresh)
        report(
          t,
          p.name,
          seed,
          await fc.check(
            property((v) => v.cls === cls),
            params,
          ),
        );
      if (!fresh.length) t.pass('no new failure class');
    });
  }

  await t.test('the gateway still serves a valid request', async (t) => {
    const o = await run(gw, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: [['content-type', 'application/json']],
      body: Buffer.from(
        JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'Say hi' }] }),
      ),
      auth: 'bearer',
    });
    t.equal(o.answer.status, 200, o.answer.error ?? o.answer.body.toString('utf8').slice(0, 200));
    t.strictSame(pollution(), [], 'Object.prototype untouched');
  });

  const summary = [
    `${tally.cases} generated requests in ${Date.now() - started} ms`,
    `statuses: ${[...tally.statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`,
    ...[...tally.known].map(([cls, n]) => `known open failure ${cls}: ${n} cases`),
    ...[...tally.refusals].map(
      ([kind, { count, example }]) =>
        `upstream refused what the contract leaves open, ${kind}: ${count}, e.g. ${example}`,
    ),
  ];
  t.comment(summary.join('\n'));
  if (env.FUZZ_RECORD === '1' && newEntries.length)
    t.comment(`corpus: ${await record(newEntries)} entries added`);
});
