/**
 * A cache's hit (a stage's answer with `replayed: true`) through a real gateway and the simulator: its
 * usage record keeps the replayed call's token counts, costs nothing and says what it saved; a key's
 * budget is not charged for it; the token-per-minute window does not count it, while the request window
 * does; the usage summary sums what hits saved. With the memory backends, and with Redis sharing the
 * rate-limit windows and the budget ledger.
 */
import t, { type Test } from 'tap';
import type { KeyWithActivity, List, UsageSummaryRow } from '../../../core/admin/wire';
import type { UsageRecord } from '../../../core/stores/usage-store';
import { CacheHitStage, HIT_USAGE } from '../../fixtures/stages/cache-hit';
import { adminCall } from '../../helpers/admin';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { postJson, type ErrorBody, type JsonResponse } from '../../helpers/http';
import { patientRedis } from '../../helpers/patient-redis';
import { redisPrefix, TEST_REDIS_URL } from '../../helpers/redis';
import { until } from '../../helpers/wait';

const PRICED = 'modela-5.5';
const UNPRICED = 'modelb-3.5-flash';
/** HIT_USAGE at 1.25 per million prompt tokens and 10 per million completion tokens, in micro-units. */
const HIT_PRICE = 1_000 * 1.25 + 500 * 10;
/** The token window every key gets: less than one hit's tokens, so a counted hit would fill it. */
const TOKENS_PER_MINUTE = 1_000;

let seq = 0;

/** A chat call with `key`: a hit when `hit`, else a short real call to the simulator. */
function chat(
  gw: TestGateway,
  key: string,
  hit: boolean,
  model = PRICED,
): Promise<JsonResponse & { id: string }> {
  const id = `hit-${process.pid}-${++seq}`;
  const body = {
    model,
    max_tokens: 40,
    messages: [{ role: 'user', content: 'say something #sim tokens=4' }],
  };
  const headers = { 'x-request-id': id, ...(hit ? { 'x-cache-hit': '1' } : {}) };
  return postJson(`${gw.url}/v1/chat/completions`, body, key, headers).then((res) => ({ ...res, id }));
}

/** The call's record, once metering has written it (its finish runs after the last byte). */
async function recordOf(gw: TestGateway, id: string): Promise<UsageRecord> {
  const [record] = await until(
    () => gw.gateway.usage.list({ id }),
    (records) => records.length === 1,
    { what: `the record of ${id}` },
  );
  return record!;
}

async function start(t: Test, shared: boolean): Promise<TestGateway> {
  const prefix = shared ? redisPrefix(t) : '';
  return startTestGateway(t, (doc) => {
    (doc.prices as Record<string, unknown>)[PRICED] = { input_per_mtok: 1.25, output_per_mtok: 10 };
    const pipeline = doc.pipeline as unknown[];
    pipeline[2] = { 'rate-limit': { requests_per_minute: 100_000, tokens_per_minute: TOKENS_PER_MINUTE } };
    // After usage-metering, budget and rate-limit, as a cache would be: they see its hits end.
    pipeline.splice(pipeline.indexOf('usage-metering') + 1, 0, 'test-cache-hit');
    if (shared) {
      doc.redis = { url: TEST_REDIS_URL, key_prefix: prefix };
      patientRedis(doc);
    }
  });
}

t.ok(CacheHitStage, 'the stage is registered by its manifest');

for (const shared of [false, true]) {
  t.test(`cache hits are metered free (${shared ? 'Redis' : 'memory'} limits and budgets)`, async (t) => {
    const gw = await start(t, shared);

    t.test('a hit: no cost, what it saved, the counts of the call it repeats', async (t) => {
      const key = await gw.createKey();
      const hit = await chat(gw, key, true);
      t.equal(hit.status, 200);
      t.match(hit.body, { id: 'replayed' }, "the stage's answer");
      const record = await recordOf(gw, hit.id);
      t.match(record, {
        model: PRICED,
        status: 200,
        outcome: 'ok',
        cache: 'hit',
        cost_micros: 0,
        saved_micros: HIT_PRICE,
        prompt_tokens: HIT_USAGE.promptTokens,
        completion_tokens: HIT_USAGE.completionTokens,
        total_tokens: HIT_USAGE.promptTokens + HIT_USAGE.completionTokens,
        estimated: false,
      });
      const unpriced = await recordOf(gw, (await chat(gw, key, true, UNPRICED)).id);
      t.match(
        unpriced,
        { cache: 'hit', cost_micros: 0, saved_micros: null },
        'unpriced: the saving is unknown',
      );
      const miss = await recordOf(gw, (await chat(gw, key, false)).id);
      t.ok(miss.cost_micros! > 0, 'a miss costs its price');
      t.notOk('cache' in miss || 'saved_micros' in miss, 'and carries neither field');

      const summary = await adminCall<List<UsageSummaryRow>>(
        gw,
        gw.gateway.adminToken,
        'GET',
        `/admin/usage/summary?group_by=model&key_id=${key.slice(0, 11)}`,
      );
      t.equal(summary.status, 200);
      t.strictSame(
        summary.body.data.map((r) => [
          r.model,
          r.requests,
          r.cost_micros,
          r.cost_unknown_requests,
          r.saved_micros,
        ]),
        [
          [PRICED, 2, miss.cost_micros, 0, HIT_PRICE],
          [UNPRICED, 1, 0, 0, 0],
        ],
        "the summary: the miss's cost, the hit's saving, an unknown saving adds nothing",
      );
    });

    t.test("a key's budget is not charged for hits", async (t) => {
      // Two hits at their price would spend more than the budget; the call after them would be refused.
      const created = await gw.gateway.keys.create({ budget: { amount_micros: 10_000, period: 'total' } });
      const { key } = created;
      for (let i = 0; i < 2; i++) {
        const hit = await chat(gw, key, true);
        t.equal(hit.status, 200, `hit ${i + 1} served`);
        await recordOf(gw, hit.id); // counted by the ledger as it was written
      }
      const spent = async () =>
        (
          await adminCall<KeyWithActivity>(
            gw,
            gw.gateway.adminToken,
            'GET',
            `/admin/keys/${created.record.id}`,
          )
        ).body.spent_micros;
      t.equal(await spent(), 0, 'nothing spent after two hits');
      const miss = await chat(gw, key, false);
      t.equal(miss.status, 200, 'a call after them is admitted: the budget has room');
      const { cost_micros } = await recordOf(gw, miss.id);
      t.equal(await spent(), cost_micros, 'only the miss is spent');
    });

    t.test('hits count as requests, not as tokens', async (t) => {
      const key = await gw.createKey({ rate_limit_rpm: 4 });
      const remaining = (res: JsonResponse) => [
        res.headers.get('x-ratelimit-remaining-requests'),
        res.headers.get('x-ratelimit-remaining-tokens'),
      ];
      const first = await chat(gw, key, true);
      await recordOf(gw, first.id);
      t.strictSame(remaining(first), ['3', String(TOKENS_PER_MINUTE)], 'the first hit');
      const second = await chat(gw, key, true);
      await recordOf(gw, second.id);
      t.strictSame(remaining(second), ['2', String(TOKENS_PER_MINUTE)], 'no tokens after a hit of 1,500');
      const miss = await chat(gw, key, false);
      t.equal(miss.status, 200, 'a miss after two hits is admitted');
      t.strictSame(remaining(miss), ['1', String(TOKENS_PER_MINUTE)], 'the window holds no tokens');
      t.equal((await chat(gw, key, true)).status, 200, 'the fourth request');
      const refused = await chat(gw, key, true);
      t.equal(refused.status, 429, 'the fifth is over the request limit, hit or not');
      t.equal((refused.body as unknown as ErrorBody).error.code, 'rate_limited');
    });
  });
}
