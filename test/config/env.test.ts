/**
 * `${VAR}` expansion as the shipped gateway.yaml uses it: defaults holding references of their own
 * (base URLs that follow SIMULATOR_PORT), map keys (a vendor's header name), every missing variable
 * reported at once, and which variable fed each field.
 */
import t from 'tap';
import { interpolate, referencedVariables } from '../../config/env';
import type { ConfigError } from '../../config/errors';
import { buildConfig, variablesOf } from '../../config/load';

const minimal = (extra: Record<string, unknown>) => ({ pipeline: ['auth'], ...extra });

t.test('a default may hold a reference, read only when the default is used', (t) => {
  const text = '${BASE:-http://127.0.0.1:${SIM_PORT:-9100}/v1}';
  t.equal(interpolate(text, {}), 'http://127.0.0.1:9100/v1');
  t.equal(interpolate(text, { SIM_PORT: '9200' }), 'http://127.0.0.1:9200/v1');
  t.equal(interpolate(text, { BASE: 'https://api.example', SIM_PORT: '9200' }), 'https://api.example');
  t.equal(interpolate('${A:-${MISSING}}', { A: 'set' }), 'set', 'an unused default is not read');
  t.throws(() => interpolate('${A:-${MISSING}}', {}), /MISSING is not set/);
  t.equal(interpolate('cost: ${ 1 } and ${A', {}), 'cost: ${ 1 } and ${A', 'what is not a reference stays');
  t.strictSame(referencedVariables(text), ['BASE'], 'the variable that sets it, not the one in its default');
  t.end();
});

t.test('map keys are expanded too: a header name from the environment', (t) => {
  const doc = minimal({
    upstreams: {
      v: {
        plugin: 'videoa',
        base_url: 'http://a',
        submit_headers: { '${ASYNC:-x-nativea-async}': 'enable' },
      },
    },
  });
  t.strictSame(buildConfig(doc, {}).upstreams.v!.submit_headers, { 'x-nativea-async': 'enable' });
  t.strictSame(buildConfig(doc, { ASYNC: 'X-DashScope-Async' }).upstreams.v!.submit_headers, {
    'X-DashScope-Async': 'enable',
  });
  const twice = minimal({ prices: { '${A:-m}': {}, m: {} } });
  t.throws(() => buildConfig(twice, {}), /prices\.m: the key "m" names "m" twice/);
  t.end();
});

t.test('every missing variable is reported at once', (t) => {
  const doc = minimal({
    redis: { url: '${R}' },
    upstreams: { a: { plugin: 'modela', base_url: '${A_URL}' } },
  });
  const error = t.throws(() => buildConfig(doc, {})) as ConfigError;
  t.strictSame(
    error.problems.map((p) => p.path),
    ['redis.url', 'upstreams.a.base_url'],
  );
  t.match(error.message, /2 problems:\n {2}redis\.url: environment variable R is not set/);
  t.end();
});

t.test('a loaded configuration knows which variable feeds a field', (t) => {
  const config = buildConfig(
    minimal({
      server: { host: '${GATEWAY_HOST:-0.0.0.0}' },
      upstreams: {
        a: { plugin: 'modela', base_url: '${A_URL:-http://127.0.0.1:${SIMULATOR_PORT:-9100}/v1}' },
      },
    }),
    {},
  );
  t.strictSame(variablesOf(config, 'server.host'), ['GATEWAY_HOST']);
  t.strictSame(variablesOf(config, 'upstreams.a.base_url'), ['A_URL']);
  t.strictSame(variablesOf(config, 'server.port'), ['PORT'], 'the loader’s own overrides');
  t.strictSame(variablesOf(config, 'upstreams.a.api_key'), [], 'none for a field the file alone sets');
  t.end();
});
