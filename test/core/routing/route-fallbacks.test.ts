/**
 * Routes with fallbacks: each entry resolved against the upstreams' model tables (an alias of the route's
 * model, or another model of the same API), configuration errors at start-up naming the entry, and the
 * choice of targets while upstreams are ejected.
 */
import t, { type Test } from 'tap';
import { ConfigError } from '../../../config/errors';
import type { RouteConfig } from '../../../config/schema';
import { GatewayError } from '../../../core/base/errors';
import type { Endpoint } from '../../../core/request/served-request';
import type { ModelApi, ModelSpec } from '../../../core/contracts/api';
import type { UpstreamPlugin } from '../../../core/contracts/upstream';
import { Catalogue, nextTarget, type EjectionView } from '../../../core/routing/catalogue';
import type { Upstream } from '../../../core/upstream/upstream';
import { fakeClock } from '../../helpers/clock';

const api = (id: string): ModelApi => ({
  id,
  method: 'POST',
  path: `/${id}`,
  dialect: {} as ModelApi['dialect'],
  genAi: { operation: 'chat' },
});
const CHAT = api('chat');
const MESSAGES = api('messages');
const spec = (id: string, modelApi = CHAT): ModelSpec => ({ id, api: modelApi, created: 0, ownedBy: 'test' });

/** An upstream whose plugin serves `models`; nothing else of it is used by the catalogue. */
const upstream = (name: string, models: ModelSpec[]): Upstream => {
  const plugin: UpstreamPlugin = { models };
  return { name, plugin } as unknown as Upstream;
};

const UPSTREAMS = [
  upstream('a-main', [spec('a-1')]),
  upstream('a-backup', [spec('a-1')]),
  upstream('c-main', [spec('c-1'), spec('c-2')]),
  upstream('d-main', [spec('d-1', MESSAGES)]),
];
const ENDPOINT: Endpoint = {
  id: 'chat',
  method: 'POST',
  path: '/chat',
  routedByModel: true,
  serves: (m) => m.api.id === 'chat',
  handle: () => Promise.resolve(),
};

const route = (r: Partial<RouteConfig> & Pick<RouteConfig, 'targets'>): RouteConfig => ({
  fallbacks: [],
  ...r,
});
const target = (u: string, weight = 1, model?: string) => ({
  upstream: u,
  weight,
  ...(model ? { model } : {}),
});

function ejected(names: Record<string, number>): EjectionView {
  return {
    ejectedCount: Object.keys(names).length,
    ejectedUntil: (u) => names[u] ?? 0,
  };
}

const configError = (t: Test, routes: Record<string, RouteConfig>, path: string, message: RegExp) => {
  try {
    new Catalogue(UPSTREAMS, routes);
    t.fail('accepted');
  } catch (e) {
    t.ok(e instanceof ConfigError);
    t.equal((e as ConfigError).path, path);
    t.match((e as Error).message, message);
  }
};

t.test('fallbacks resolve as an alias or as another model of the same API, metered as itself', (t) => {
  const catalogue = new Catalogue(UPSTREAMS, {
    'a-1': route({
      targets: [target('a-main')],
      fallbacks: [
        { upstream: 'a-backup', model: 'a-1-renamed' },
        { upstream: 'c-main', model: 'c-2' },
      ],
    }),
  });
  const primary = catalogue.resolve(ENDPOINT, 'a-1');
  t.equal(primary.upstream.name, 'a-main');
  const [alias, other] = primary.route.fallbacks;
  t.equal(alias?.spec.id, 'a-1');
  t.equal(alias?.upstreamModel, 'a-1-renamed');
  t.equal(other?.spec.id, 'c-2', 'priced and metered as the model that serves');
  t.equal(other?.upstreamModel, 'c-2');
  t.equal(catalogue.targetOn('a-1', 'c-main'), other, 'a task on a fallback still finds its target');
  t.end();
});

t.test('configuration errors name the entry', (t) => {
  configError(
    t,
    { 'a-1': route({ targets: [target('a-main')], fallbacks: [{ upstream: 'nope' }] }) },
    'routes.a-1.fallbacks[0].upstream',
    /no upstream named "nope"/,
  );
  configError(
    t,
    { 'a-1': route({ targets: [target('a-main')], fallbacks: [{ upstream: 'd-main', model: 'd-1' }] }) },
    'routes.a-1.fallbacks[0].model',
    /served on messages, not on chat/,
  );
  configError(
    t,
    { 'a-1': route({ targets: [target('a-main')], fallbacks: [{ upstream: 'c-main' }] }) },
    'routes.a-1.fallbacks[0].upstream',
    /does not serve model a-1/,
  );
  configError(
    t,
    { 'a-1': route({ targets: [target('a-main')], fallbacks: [{ upstream: 'c-main', model: 'c-9' }] }) },
    'routes.a-1.fallbacks[0].upstream',
    /serves neither model a-1 nor c-9/,
  );
  configError(
    t,
    { 'a-1': route({ targets: [target('c-main')] }) },
    'routes.a-1.targets[0].upstream',
    /does not serve model a-1/,
  );
  t.end();
});

t.test('ejected targets are passed over; then the first fallback in service; then 503', (t) => {
  const catalogue = new Catalogue(UPSTREAMS, {
    'a-1': route({
      targets: [target('a-main', 9), target('a-backup', 1)],
      fallbacks: [{ upstream: 'c-main', model: 'c-1' }],
    }),
  });
  // The Retry-After below counts from the catalogue's own reading of the clock: a fake one, so no stall
  // between here and there can take a second off it.
  const now = fakeClock(t).now;
  for (let i = 0; i < 20; i++) {
    t.equal(catalogue.resolve(ENDPOINT, 'a-1', ejected({ 'a-main': now + 5_000 })).upstream.name, 'a-backup');
  }
  const both = ejected({ 'a-main': now + 5_000, 'a-backup': now + 60_000 });
  t.equal(catalogue.resolve(ENDPOINT, 'a-1', both).upstream.name, 'c-main');
  const all = ejected({ 'a-main': now + 5_000, 'a-backup': now + 60_000, 'c-main': now + 9_000 });
  const refused = (() => {
    try {
      catalogue.resolve(ENDPOINT, 'a-1', all);
    } catch (e) {
      return e;
    }
  })();
  t.ok(refused instanceof GatewayError);
  t.equal((refused as GatewayError).status, 503);
  t.equal((refused as GatewayError).code, 'upstream_unavailable');
  t.equal((refused as GatewayError).headers['retry-after'], '5', 'whole seconds until the first return');
  t.end();
});

t.test('the retry goes to the first fallback in service, else another target', (t) => {
  const withFallbacks = new Catalogue(UPSTREAMS, {
    'a-1': route({
      targets: [target('a-main'), target('a-backup')],
      fallbacks: [{ upstream: 'a-main' }, { upstream: 'c-main', model: 'c-1' }],
    }),
  });
  const none = ejected({});
  const primary = withFallbacks.targetOn('a-1', 'a-main')!;
  t.equal(nextTarget(primary, none)?.upstream.name, 'c-main', 'not the upstream that failed');
  t.equal(nextTarget(primary, ejected({ 'c-main': Date.now() + 1_000 })), undefined, 'none left in service');
  const plain = new Catalogue(UPSTREAMS, {});
  const first = plain.targetOn('a-1', 'a-main')!;
  t.equal(nextTarget(first, none)?.upstream.name, 'a-backup', 'without fallbacks: another target');
  t.equal(nextTarget(plain.targetOn('c-1', 'c-main')!, none), undefined, 'a single target has none');
  t.end();
});
