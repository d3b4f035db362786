/**
 * Session affinity as the model-router stage applies it, over a real catalogue: a session keeps its
 * target while it is in service, moves with the normal weighted choice when it is ejected (and stays
 * there), survives a rebuilt catalogue (a reload) while its target is configured; placements expire
 * after their ttl, renewed by each call; `by: prefix` keys a session by the conversation's start on each
 * API. On Redis (real), two instances place a session alike, atomically; a Redis that stops answering
 * costs a call its command timeout at most and gives the normal choice.
 */
import t from 'tap';
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RouteConfig } from '../../../../config/schema';
import type { JsonObject } from '../../../../core/base/json';
import type { EndpointInfo, ModelApi, ModelSpec } from '../../../../core/contracts/api';
import type { RouteTarget } from '../../../../core/contracts/route';
import { RedisLink } from '../../../../core/redis/redis-link';
import { Catalogue } from '../../../../core/routing/catalogue';
import type { Upstream } from '../../../../core/upstream/upstream';
import { ChatCompletionsApi } from '../../../../plugins/apis/chat-completions';
import { MessagesApi } from '../../../../plugins/apis/messages';
import { ResponsesApi } from '../../../../plugins/apis/responses';
import { MemoryPlacements } from '../../../../plugins/middleware/model-router/placements';
import { RedisPlacements } from '../../../../plugins/middleware/model-router/redis-placements';
import {
  type InService,
  SessionAffinity,
  sessionOf,
} from '../../../../plugins/middleware/model-router/session-affinity';
import { manualClock } from '../../../helpers/clock';
import { recordingLogger } from '../../../helpers/logs';
import { redisPrefix, TEST_REDIS_URL } from '../../../helpers/redis';
import { stallingProxy } from '../../../helpers/stalling-proxy';
import { until } from '../../../helpers/wait';

const SPEC: ModelSpec = { id: 'a-1', api: ChatCompletionsApi, created: 0, ownedBy: 'test' };
const upstream = (name: string): Upstream => ({ name, plugin: { models: [SPEC] } }) as unknown as Upstream;
const UPSTREAMS = ['a-main', 'a-backup', 'a-third', 'a-spare'].map(upstream);
const ENDPOINT: EndpointInfo = {
  id: 'chat',
  method: 'POST',
  path: '/chat',
  routedByModel: true,
  api: ChatCompletionsApi,
  serves: () => true,
};
const BODY: JsonObject = { model: 'a-1', messages: [{ role: 'user', content: 'hi' }] };
const AFFINITY = { by: 'header', header: 'x-session-id', ttl: 3_600_000 } as const;

const catalogueOf = (targets: string[], extra: Partial<RouteConfig> = {}): Catalogue =>
  new Catalogue(UPSTREAMS, {
    'a-1': {
      targets: targets.map((u) => ({ upstream: u, weight: 1 })),
      fallbacks: [],
      affinity: AFFINITY,
      ...extra,
    },
  });

/** Upstream health with `out` ejected. */
const health = (...out: string[]): InService => ({
  ejectedCount: out.length,
  ejectedUntil: (u) => (out.includes(u) ? Date.now() + 60_000 : 0),
});

/** One call as the stage makes it: the catalogue's normal choice, then the session's placement. */
async function call(
  affinity: SessionAffinity,
  catalogue: Catalogue,
  headers: IncomingHttpHeaders,
  state: InService = health(),
): Promise<string> {
  const chosen = catalogue.resolve(ENDPOINT, 'a-1', state);
  const route = chosen.route.affinity!;
  const placed: RouteTarget = await affinity.place(
    route,
    { headers, api: ENDPOINT.api, body: BODY },
    chosen,
    state,
  );
  return placed.upstream.name;
}

async function calls(n: number, make: (i: number) => Promise<string>): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) seen.add(await make(i));
  return seen;
}

t.test('a session keeps its target; calls of no session take the weighted choice', async (t) => {
  const affinity = new SessionAffinity(new MemoryPlacements());
  const catalogue = catalogueOf(['a-main', 'a-backup']);
  const one = await calls(40, () => call(affinity, catalogue, { 'x-session-id': 's-1' }));
  t.equal(one.size, 1, `every call of the session on ${[...one].join()}`);
  const none = await calls(40, () => call(affinity, catalogue, {}));
  t.strictSame([...none].sort(), ['a-backup', 'a-main'], 'both targets without a session');
  const many = await calls(40, (i) => call(affinity, catalogue, { 'x-session-id': `s-${i}` }));
  t.strictSame([...many].sort(), ['a-backup', 'a-main'], 'sessions are spread by the weights');
});

t.test('an ejected target: the session moves to the normal choice and stays there', async (t) => {
  const affinity = new SessionAffinity(new MemoryPlacements());
  const catalogue = catalogueOf(['a-main', 'a-backup', 'a-third']);
  const session = { 'x-session-id': 's-1' };
  const [first] = await calls(1, () => call(affinity, catalogue, session));
  const moved = await calls(20, () => call(affinity, catalogue, session, health(first!)));
  t.equal(moved.size, 1, 'one new target');
  t.notOk(moved.has(first!), 'not the ejected one');
  const back = await calls(20, () => call(affinity, catalogue, session));
  t.strictSame(back, moved, 'it stays there once the first returns');
});

t.test('every target out: a fallback serves and the placement is kept for their return', async (t) => {
  const affinity = new SessionAffinity(new MemoryPlacements());
  const catalogue = catalogueOf(['a-main', 'a-backup'], { fallbacks: [{ upstream: 'a-spare' }] });
  const session = { 'x-session-id': 's-1' };
  const [first] = await calls(1, () => call(affinity, catalogue, session));
  t.equal(await call(affinity, catalogue, session, health('a-main', 'a-backup')), 'a-spare');
  t.equal(await call(affinity, catalogue, session), first);
});

t.test('a rebuilt catalogue (a reload) keeps the placements of targets it still has', async (t) => {
  const affinity = new SessionAffinity(new MemoryPlacements());
  const before = catalogueOf(['a-main', 'a-backup']);
  const session = { 'x-session-id': 's-1' };
  const [first] = await calls(1, () => call(affinity, before, session));
  const reordered = catalogueOf(['a-backup', 'a-third', 'a-main']);
  t.strictSame(await calls(20, () => call(affinity, reordered, session)), new Set([first]));
  const without = catalogueOf(['a-main', 'a-backup', 'a-third'].filter((u) => u !== first));
  const placedAnew = await calls(20, () => call(affinity, without, session));
  t.equal(placedAnew.size, 1, 'its target gone: placed anew, and kept');
});

t.test('placements: renewed by each call, forgotten after ttl without one, bounded', (t) => {
  const clock = manualClock();
  const placements = new MemoryPlacements(2, clock.read);
  const usable = ['X', 'Y'];
  t.equal(placements.place('k', 'X', usable, 1_000), 'X');
  clock.tick(900);
  t.equal(placements.place('k', 'Y', usable, 1_000), 'X', 'kept, and renewed');
  clock.tick(900);
  t.equal(placements.place('k', 'Y', usable, 1_000), 'X', '1,800 ms after the first call');
  clock.tick(1_001);
  t.equal(placements.place('k', 'Y', usable, 1_000), 'Y', 'forgotten after a ttl without a call');
  t.equal(placements.place('k', 'X', ['X'], 1_000), 'X', 'a placement not usable is replaced');
  placements.place('k2', 'Y', usable, 1_000);
  placements.place('k3', 'Y', usable, 1_000);
  t.equal(placements.size, 2, 'the least recently used goes beyond the bound');
  t.equal(placements.place('k', 'Y', usable, 1_000), 'Y', 'k went first');
  t.end();
});

t.test('sessions: a header value, or the start of the conversation on each API', (t) => {
  const byHeader = { by: 'header', header: 'x-session-id', ttlMs: 1 } as const;
  const byPrefix = { by: 'prefix', header: 'x-session-id', ttlMs: 1 } as const;
  const of = (api: ModelApi, body: JsonObject, headers: IncomingHttpHeaders = {}) => ({
    header: sessionOf(byHeader, { headers, api, body }),
    prefix: sessionOf(byPrefix, { headers, api, body }),
  });
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  t.equal(of(ChatCompletionsApi, {}, { 'x-session-id': 'abc' }).header, sha('abc'));
  t.equal(of(ChatCompletionsApi, {}, { 'x-session-id': '' }).header, undefined, 'an empty value: none');
  t.equal(of(ChatCompletionsApi, {}).header, undefined);

  const system = { role: 'system', content: 'Be brief.' };
  const first = { role: 'user', content: 'Hello' };
  const later = [
    { role: 'assistant', content: 'Hi.' },
    { role: 'user', content: 'More?' },
  ];
  const chat = (...messages: JsonObject[]) => of(ChatCompletionsApi, { messages }).prefix;
  t.ok(chat(system, first));
  t.equal(chat(system, first, ...later), chat(system, first), 'later turns change nothing');
  t.not(chat({ ...system, content: 'Be long.' }, first), chat(system, first), 'another system prompt');
  t.not(chat({ ...system, role: 'developer' }, first, ...later), chat(first), 'developer counts as system');
  t.equal(chat(), undefined, 'no conversation: no session');

  const messages = (body: JsonObject) => of(MessagesApi, body).prefix;
  const opening = { system: 'Be brief.', messages: [first] };
  t.equal(messages({ ...opening, messages: [first, ...later] }), messages(opening));
  t.not(messages({ ...opening, system: 'Be long.' }), messages(opening));

  const responses = (body: JsonObject) => of(ResponsesApi, body).prefix;
  const instructed = { instructions: 'Be brief.', input: 'Hello' };
  t.equal(responses({ ...instructed, input: [first, ...later] }), responses(instructed), 'string or items');
  t.not(responses({ ...instructed, instructions: 'Be long.' }), responses(instructed));
  t.end();
});

t.test('on Redis: two instances place a session alike, under the gateway prefix', async (t) => {
  const config = { url: TEST_REDIS_URL, key_prefix: redisPrefix(t), command_timeout: 5_000 };
  const { logger } = recordingLogger();
  const links = await Promise.all([1, 2].map(() => RedisLink.connect(config, logger, 10_000)));
  t.teardown(() => Promise.all(links.map((l) => l.close())));
  const [a, b] = links.map((link) => new SessionAffinity(new RedisPlacements(link, logger)));
  const catalogue = catalogueOf(['a-main', 'a-backup', 'a-third']);
  const session = { 'x-session-id': 's-1' };
  // Placed by both at once: the script places it once, and both answer its placement.
  const racing = await Promise.all(
    Array.from({ length: 10 }, (_, i) => call(i % 2 ? a! : b!, catalogue, session)),
  );
  t.equal(new Set(racing).size, 1, `every first call on ${racing[0]}`);
  t.strictSame(await calls(20, (i) => call(i % 2 ? a! : b!, catalogue, session)), new Set(racing));

  const key = `${config.key_prefix}affinity:a-1:${createHash('sha256').update('s-1').digest('hex')}`;
  t.equal(await links[0]!.client.get(key), JSON.stringify([racing[0], 'a-1']));
  const ttl = await links[0]!.client.pttl(key);
  t.ok(ttl > 3_500_000 && ttl <= 3_600_000, `expires in the route's ttl (${ttl} ms)`);

  const moved = await calls(20, (i) => call(i % 2 ? a! : b!, catalogue, session, health(racing[0]!)));
  t.equal(moved.size, 1, 'ejected: moved once, for both');
  t.notOk(moved.has(racing[0]!));
  t.strictSame(await calls(10, (i) => call(i % 2 ? a! : b!, catalogue, session)), moved, 'and kept');
});

t.test('a Redis that stops answering: the normal choice, after the command timeout at most', async (t) => {
  const proxy = await stallingProxy(t, TEST_REDIS_URL);
  const config = { url: proxy.url, key_prefix: redisPrefix(t), command_timeout: 200 };
  const { logger, lines } = recordingLogger('info');
  const link = await RedisLink.connect(config, logger, 10_000);
  t.teardown(() => link.close());
  const affinity = new SessionAffinity(new RedisPlacements(link, logger));
  const catalogue = catalogueOf(['a-main', 'a-backup']);
  const session = { 'x-session-id': 's-1' };
  proxy.stall();
  const started = performance.now();
  const seen = await calls(40, () => call(affinity, catalogue, session));
  const ms = performance.now() - started;
  t.strictSame([...seen].sort(), ['a-backup', 'a-main'], 'the weighted choice, session or not');
  // One timeout, then Redis is left alone for a second: 40 calls cost about one timeout, not 40.
  t.ok(ms < 4_000, `40 calls in ${Math.round(ms)} ms, where a timeout each would take 8 s`);
  const warnings = lines.filter((l) => /session affinity: redis did not answer/.test(l.msg));
  t.equal(warnings.length, 1, 'said once');
  proxy.resume();
  // Redis is tried again once its pause is over: the session is placed there, then kept.
  const answersAgain = () => lines.some((l) => /redis answers again/.test(l.msg));
  const placed = await until(() => call(affinity, catalogue, session), answersAgain, {
    what: 'a placement on redis again',
  });
  t.strictSame(await calls(10, () => call(affinity, catalogue, session)), new Set([placed]));
});
