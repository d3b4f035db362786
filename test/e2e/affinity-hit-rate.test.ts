/**
 * What session affinity buys in prompt-cache hits, measured: a route of two targets, each on a
 * simulator of its own (each keeps its own prompt cache, as a vendor's deployment does), 8 conversations
 * of 5 calls each, taken in turn, every call repeating its conversation's start (a 1,100-token system
 * prompt and the first user turn) with new last turns. The cached share is Σ cache_read_tokens ÷
 * Σ prompt_tokens of the usage records; the ideal is every call after a conversation's first reading
 * its start from the cache.
 *
 * With affinity each conversation stays on one simulator: the ideal, exactly. Without, a conversation
 * misses once more the first time the weighted choice sends it to the other simulator, which happens
 * unless all of its 5 calls fall on one side (1 in 16): 24 + B of the 32 possible hits, B binomial
 * (8, 1/16). The bound below, 0.95 of the share with affinity, fails only for B ≥ 7: about 3 in 10⁸.
 */
import t, { type Test } from 'tap';
import { startSimulator } from '../../simulator/server';
import type { UsageRecord } from '../../core/stores/usage-store';
import { startTestGateway } from '../helpers/gateway';
import { postJson } from '../helpers/http';
import { MODEL, twoTargets } from '../helpers/affinity';

const CONVERSATIONS = 8;
const CALLS = 5;
/** 4,400 characters (1,100 tokens at the simulator's four characters a token), a different one each. */
const system = (c: number) =>
  `Conversation ${c}. `.padEnd(40, '.') + 'Follow the house style. '.repeat(182).slice(0, 4_360);
const FIRST = 'Here are my notes; keep them in mind.';
const turns = (call: number) =>
  Array.from({ length: call - 1 }, (_, i) => [
    { role: 'assistant', content: `Noted, part ${i + 1}. ${'Lorem ipsum dolor. '.repeat(10)}` },
    { role: 'user', content: `Part ${i + 2}: ${'More notes follow here. '.repeat(8)} #sim tokens=2` },
  ]).flat();

interface Run {
  readonly cached: number;
  readonly prompt: number;
}

/** The 40 calls through a fresh gateway and simulators; the usage records' sums. */
async function run(t: Test, affinity: boolean): Promise<Run> {
  const backup = await startSimulator();
  t.teardown(() => backup.close());
  const gw = await startTestGateway(t, (doc) =>
    twoTargets(doc, backup.url, affinity ? { header: 'x-session-id' } : undefined),
  );
  for (let call = 1; call <= CALLS; call++) {
    for (let c = 0; c < CONVERSATIONS; c++) {
      const messages = [
        { role: 'system', content: system(c) },
        { role: 'user', content: FIRST },
        ...turns(call),
      ];
      const res = await postJson(`${gw.url}/v1/chat/completions`, { model: MODEL, messages }, gw.key, {
        'x-session-id': `conversation-${c}`,
      });
      if (res.status !== 200) throw new Error(`conversation ${c}, call ${call}: ${res.status} ${res.text}`);
    }
  }
  await gw.gateway.usage.flush();
  const records: UsageRecord[] = (await gw.gateway.usage.list()).filter((r) => r.model === MODEL);
  t.equal(records.length, CONVERSATIONS * CALLS, 'a record per call');
  const sum = (of: (r: UsageRecord) => number) => records.reduce((n, r) => n + of(r), 0);
  return { cached: sum((r) => r.cache_read_tokens ?? 0), prompt: sum((r) => r.prompt_tokens) };
}

t.test('affinity keeps conversations where their prompt cache is', async (t) => {
  const without = await run(t, false);
  const withAffinity = await run(t, true);
  t.equal(withAffinity.prompt, without.prompt, 'the same calls, the same prompt tokens');
  const startTokens = Math.ceil((system(0).length + FIRST.length) / 4);
  const ideal = (CONVERSATIONS * (CALLS - 1) * startTokens) / withAffinity.prompt;
  const share = (r: Run) => r.cached / r.prompt;
  const [rateWith, rateWithout] = [share(withAffinity), share(without)];
  t.comment(
    `cached share of prompt tokens: ideal ${ideal.toFixed(3)}, with affinity ${rateWith.toFixed(3)}` +
      ` (${(rateWith / ideal).toFixed(2)} of ideal), without ${rateWithout.toFixed(3)}` +
      ` (${(rateWithout / ideal).toFixed(2)} of ideal, ${(rateWithout / rateWith).toFixed(2)} of with)`,
  );
  t.ok(rateWith >= 0.8 * ideal, 'with affinity: at least 0.8 of the ideal');
  t.equal(rateWith, ideal, 'with affinity: every call after the first reads its start from the cache');
  t.ok(rateWithout <= 0.95 * rateWith, 'without: clearly less');
});
