/** With the simulator off, which upstreams still point at it, and what the warning tells the operator to set. */
import t from 'tap';
import { join } from 'node:path';
import { buildConfig, loadConfigFile, variablesOf } from '../../../config/load';
import { SIMULATOR_KEY, simulatorLeftovers } from '../../../core/upstream/simulator-leftovers';
import { families } from '../../../simulator/families';

const doc = (
  upstreams: Record<string, unknown>,
  simulator: Record<string, unknown> = { enabled: false },
) => ({
  pipeline: ['auth'],
  simulator: { port: 9100, ...simulator },
  upstreams,
});

t.test('every simulator credential is recognised as one', (t) => {
  for (const family of families) t.match(family.defaultKey, SIMULATOR_KEY, family.name);
  t.end();
});

t.test(
  'an address or a key of the simulator is named, with the field to set when no variable feeds it',
  (t) => {
    const config = buildConfig(
      doc({
        local: { plugin: 'modela', base_url: 'http://localhost:9100/modela/v1', api_key: 'sk-real' },
        keyed: { plugin: 'modela', base_url: 'https://api.example/v1', api_key: 'sim-modela-key' },
        real: { plugin: 'modela', base_url: 'https://api.example/v1', api_key: 'sk-real' },
        other: { plugin: 'modela', base_url: 'http://127.0.0.1:9101/v1', api_key: 'sk-real' },
      }),
      {},
    );
    t.strictSame(
      simulatorLeftovers(config).map((l) => l.message),
      [
        'upstream local still points at the simulator (http://localhost:9100/modela/v1) while the simulator is off: set upstreams.local.base_url',
        "upstream keyed still sends the simulator's key while the simulator is off: set upstreams.keyed.api_key",
      ],
    );
    t.end();
  },
);

t.test('none while the simulator runs', (t) => {
  const config = buildConfig(
    doc(
      { a: { plugin: 'modela', base_url: 'http://127.0.0.1:9100/v1', api_key: 'sim-modela-key' } },
      { enabled: true },
    ),
    {},
  );
  t.strictSame(simulatorLeftovers(config), []);
  t.end();
});

t.test(
  'the shipped file with the simulator off: every upstream, by its variables; none once they are set',
  (t) => {
    const shipped = join(__dirname, '../../../../gateway.yaml');
    const off = loadConfigFile(shipped, { GATEWAY_SIMULATOR: 'false' });
    // Each upstream the file ships, with the variables that feed its address and key: an upstream added
    // to gateway.yaml is checked without an edit here.
    const expected = Object.keys(off.upstreams).map((name): [string, string[]] => [
      name,
      [...variablesOf(off, `upstreams.${name}.base_url`), ...variablesOf(off, `upstreams.${name}.api_key`)],
    ]);
    for (const [name, set] of expected) {
      t.equal(set.length, 2, `gateway.yaml: ${name} takes its base_url and api_key from variables`);
    }
    t.strictSame(
      simulatorLeftovers(off).map((l) => [l.upstream, l.set]),
      expected,
    );
    const env: Record<string, string> = { GATEWAY_SIMULATOR: 'false' };
    for (const [, set] of expected) {
      const [baseUrl = '', apiKey = ''] = set;
      env[baseUrl] = `https://${baseUrl.toLowerCase()}.example`;
      env[apiKey] = 'sk-real';
    }
    t.strictSame(simulatorLeftovers(loadConfigFile(shipped, env)), []);
    t.end();
  },
);
