/**
 * The simulator's prompt cache: a conversation's start (system prompt and first user turn) of at least
 * 1,024 tokens that reaches the same simulator again within its window (5 minutes; the
 * `prompt_cache_ms` control per request) is reported as read from the cache, the way each vendor
 * reports it: `prompt_tokens_details.cached_tokens` (chat, JSON and the stream's usage chunk),
 * `cache_read_input_tokens` (modeld, left out of `input_tokens`), `input_tokens_details.cached_tokens`
 * (Responses).
 */
import t from 'tap';
import { manualClock } from '../helpers/clock';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { chat, FAMILIES, messages, readSse, type Completion, type MessageReply } from './helpers';

/** 4,400 characters: 1,100 tokens at the simulator's four characters a token. */
const SYSTEM = 'You are a careful assistant. '.repeat(152).slice(0, 4_400);
const FIRST = 'Summarise the attached notes.'; // 29 characters
/** ceil((4,400 + 29) / 4) */
const START_TOKENS = 1_108;

/** A conversation with this start, at its `turn`-th call: the start, then a new last turn each time. */
const conversation = (turn: number, system = SYSTEM) => [
  { role: 'system', content: system },
  { role: 'user', content: FIRST },
  ...(turn > 1
    ? [
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: `Now part ${turn}.` },
      ]
    : []),
];

interface CachedUsage {
  prompt_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

async function usageOf(sim: RunningSimulator, family: keyof typeof FAMILIES, body: object, headers = {}) {
  const res = await chat(sim, family, { model: `${family}-test`, ...body }, headers);
  t.equal(res.status, 200);
  return ((await res.json()) as Completion).usage as unknown as CachedUsage;
}

t.test('chat: a start seen within the window is reported as cached tokens, per family', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  for (const family of ['modela', 'modelc'] as const) {
    const first = await usageOf(sim, family, { messages: conversation(1) });
    t.equal(first.prompt_tokens_details?.cached_tokens, 0, `${family}: the first call misses`);
    const second = await usageOf(sim, family, { messages: conversation(2) });
    t.equal(second.prompt_tokens_details?.cached_tokens, START_TOKENS, `${family}: the start is cached`);
    t.ok(second.prompt_tokens > START_TOKENS, 'prompt_tokens counts the whole prompt, cached included');
  }
  const uncached = await usageOf(sim, 'modelb', { messages: conversation(1) });
  t.notOk('prompt_tokens_details' in uncached, 'modelb: no details while nothing is cached');
  const cached = await usageOf(sim, 'modelb', { messages: conversation(3) });
  t.strictSame(cached.prompt_tokens_details, { cached_tokens: START_TOKENS });
});

t.test('chat: the stream usage chunk carries the cached tokens', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  await usageOf(sim, 'modela', { messages: conversation(1) });
  const res = await chat(sim, 'modela', {
    model: 'modela-test',
    messages: conversation(2),
    stream: true,
    stream_options: { include_usage: true },
  });
  const { events } = await readSse(res);
  const usage = events.at(-1)?.usage as unknown as CachedUsage;
  t.equal(usage.prompt_tokens_details?.cached_tokens, START_TOKENS);
});

t.test('what is not cached: another simulator, model or start, a short start, past the window', async (t) => {
  const clock = manualClock();
  const sim = await startSimulator({ clock: clock.read });
  const other = await startSimulator();
  t.teardown(() => Promise.all([sim.close(), other.close()]));
  const cachedOf = async (s: RunningSimulator, body: object, headers = {}) =>
    (await usageOf(s, 'modela', body, headers)).prompt_tokens_details?.cached_tokens;
  await cachedOf(sim, { messages: conversation(1) });
  t.equal(await cachedOf(other, { messages: conversation(2) }), 0, 'each simulator has its own cache');
  t.equal(await cachedOf(sim, { model: 'modela-other', messages: conversation(2) }), 0, 'per model');
  t.equal(await cachedOf(sim, { messages: conversation(2, `${SYSTEM}!`) }), 0, 'another system prompt');
  const short = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: FIRST },
  ];
  await cachedOf(sim, { messages: short });
  t.equal(await cachedOf(sim, { messages: short }), 0, 'a start under 1,024 tokens is never cached');

  clock.tick(299_000);
  t.equal(await cachedOf(sim, { messages: conversation(3) }), START_TOKENS, 'within 5 minutes');
  clock.tick(299_000);
  t.equal(await cachedOf(sim, { messages: conversation(4) }), START_TOKENS, 'each use renews it');
  clock.tick(301_000);
  t.equal(await cachedOf(sim, { messages: conversation(5) }), 0, 'past the window: a miss');
  t.equal(await cachedOf(sim, { messages: conversation(6) }), START_TOKENS, 'cached again by the miss');
  clock.tick(10_000);
  const narrow = { 'x-sim-prompt-cache-ms': '5000' };
  t.equal(await cachedOf(sim, { messages: conversation(7) }, narrow), 0, 'a request may narrow the window');
  t.equal(await cachedOf(sim, { messages: conversation(8) }, { 'x-sim-prompt-cache-ms': '0' }), 0);
});

t.test('modeld: cache_read_input_tokens, left out of input_tokens; marked blocks decide', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const ask = async (body: object) => {
    const res = await messages(sim, { model: 'modeld-test', max_tokens: 64, ...body });
    t.equal(res.status, 200);
    return ((await res.json()) as MessageReply).usage;
  };
  const turns = (turn: number) => conversation(turn).filter((m) => m.role !== 'system');
  const first = await ask({ system: SYSTEM, messages: turns(1) });
  t.match(first, { input_tokens: START_TOKENS, cache_read_input_tokens: 0 });
  const second = await ask({ system: SYSTEM, messages: turns(2) });
  t.equal(second.cache_read_input_tokens, START_TOKENS);
  // 'Done.' (5) + 'Now part 2.' (11) after the start: ceil(4,445 / 4) = 1,112 prompt tokens in all.
  t.equal(second.input_tokens, 1_112 - START_TOKENS, 'input_tokens: what was not read from the cache');
  const marked = [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }];
  const withMarks = await ask({ system: marked, messages: turns(3) });
  t.equal(withMarks.cache_read_input_tokens, 1_100, 'the marked block, as before');
});

t.test('responses: input_tokens_details.cached_tokens', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const ask = async (input: unknown) => {
    const res = await fetch(`${sim.url}/modela/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FAMILIES.modela.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'modela-test', instructions: SYSTEM, input }),
    });
    t.equal(res.status, 200);
    return ((await res.json()) as { usage: { input_tokens_details: { cached_tokens: number } } }).usage;
  };
  t.equal((await ask(FIRST)).input_tokens_details.cached_tokens, 0);
  const later = [
    { role: 'user', content: FIRST },
    { role: 'assistant', content: 'Done.' },
    { role: 'user', content: 'Now part 2.' },
  ];
  t.equal((await ask(later)).input_tokens_details.cached_tokens, START_TOKENS, 'a string input opens alike');
});

t.test('GET /_sim/prompt-cache shows it; DELETE forgets', async (t) => {
  const sim = await startSimulator({ promptCache: { windowMs: 60_000 } });
  t.teardown(() => sim.close());
  await usageOf(sim, 'modela', { messages: conversation(1) });
  const view = await fetch(`${sim.url}/_sim/prompt-cache`);
  t.strictSame(await view.json(), { window_ms: 60_000, min_tokens: 1_024, starts: 1 });
  const cleared = await fetch(`${sim.url}/_sim/prompt-cache`, { method: 'DELETE' });
  t.strictSame(await cleared.json(), { ok: true, cleared: 1 });
  const after = await usageOf(sim, 'modela', { messages: conversation(2) });
  t.equal(after.prompt_tokens_details?.cached_tokens, 0, 'forgotten');
});
