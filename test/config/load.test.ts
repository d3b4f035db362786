import 'reflect-metadata';
import '../helpers/load-plugins';
import t, { type Test } from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { interpolate } from '../../config/env';
import { ConfigError } from '../../config/errors';
import { buildConfig, loadConfigFile } from '../../config/load';
import { startGateway } from '../../core/boot/gateway';
import { tempDir, testConfig } from '../helpers/gateway';

t.test('${VAR} and ${VAR:-default}', (t) => {
  const env = { A: 'alpha', EMPTY: '' };
  t.equal(interpolate('x-${A}-y', env), 'x-alpha-y');
  t.equal(interpolate('${MISSING:-fallback}', env), 'fallback');
  t.equal(
    interpolate('${EMPTY:-fallback}', env),
    'fallback',
    'empty counts as unset when a default is given',
  );
  t.equal(interpolate('${EMPTY}', env), '');
  t.throws(() => interpolate('${MISSING}', env), /MISSING is not set/);
  t.end();
});

t.test('the shipped gateway.yaml loads, with environment overrides', (t) => {
  const file = join(__dirname, '../../../gateway.yaml');
  const config = loadConfigFile(file, {
    PORT: '9999',
    ADMIN_PORT: '9998',
    GATEWAY_DATA_DIR: '/tmp/x',
    MODELA_API_KEY: 'real',
  });
  t.equal(config.server.port, 9999);
  t.equal(config.admin.port, 9998);
  t.equal(config.admin.host, '127.0.0.1', 'admin stays on loopback');
  t.equal(config.storage.data_dir, '/tmp/x');
  t.equal(config.upstreams['modela-main']?.api_key, 'real');
  t.equal(config.server.body_limit, 1024 * 1024);
  t.equal(config.server.timeouts.headers, 10_000);
  t.equal(config.simulator.enabled, true);
  t.strictSame(config.pipeline[2], {
    'rate-limit': { backend: 'auto', requests_per_minute: 600, per_key: {} },
  });
  t.ok(Object.isFrozen(config.server.timeouts), 'the configuration is frozen');
  t.end();
});

t.test('GATEWAY_TRUSTED_PROXIES replaces server.trusted_proxies, checked like the file', (t) => {
  const file = join(__dirname, '../../../gateway.yaml');
  t.strictSame(loadConfigFile(file, {}).server.trusted_proxies, [], 'none trusted as shipped');
  const set = loadConfigFile(file, { GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8,' });
  t.strictSame(set.server.trusted_proxies, ['10.0.0.0/8', 'fd00::/8'], 'comma-separated, blanks dropped');
  let error: unknown;
  try {
    loadConfigFile(file, { GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8,nonsense' });
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof ConfigError, 'a bad entry stops start-up');
  t.match((error as ConfigError).path, /^GATEWAY_TRUSTED_PROXIES/, 'naming the variable');
  t.match((error as ConfigError).reason, /nonsense/, 'and the entry');
  t.end();
});

const expectConfigError = async (t: Test, doc: Record<string, unknown>, path: string, reason: RegExp) => {
  const dir = await tempDir(t);
  const fullDoc = { ...testConfig('http://127.0.0.1:1', dir), ...doc };
  let error: unknown;
  try {
    await startGateway(buildConfig(fullDoc, {}));
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof ConfigError, `a ConfigError for ${path}`);
  t.equal((error as ConfigError).path, path);
  t.match((error as ConfigError).reason, reason);
};

t.test('bad configurations stop start-up with the path of the bad field', async (t) => {
  await expectConfigError(
    t,
    { pipeline: ['auth', 'no-such-stage'] },
    'pipeline[1]',
    /unknown middleware "no-such-stage"/,
  );
  await expectConfigError(
    t,
    { pipeline: ['auth', { 'rate-limit': { requests_per_minute: 'many' } }, 'model-router'] },
    'pipeline[1].rate-limit.requests_per_minute',
    /expected number/,
  );
  await expectConfigError(
    t,
    { pipeline: ['auth', { 'rate-limit': { typo: 1 } }, 'model-router'] },
    'pipeline[1].rate-limit',
    /typo/,
  );
  await expectConfigError(
    t,
    { pipeline: ['auth', 'usage-metering'] },
    'pipeline',
    /model-router must be in the pipeline/,
  );
  await expectConfigError(
    t,
    { upstreams: { x: { plugin: 'nope', base_url: 'http://a' } } },
    'upstreams.x.plugin',
    /unknown upstream plugin "nope"/,
  );
  await expectConfigError(
    t,
    { upstreams: { x: { plugin: 'modela', base_url: 'not a url' } } },
    'upstreams.x.base_url',
    /URL/i,
  );
  await expectConfigError(t, { server: { port: 70000 } }, 'server.port', /70000|too big|less than/i);
  await expectConfigError(t, { server: { body_limit: 'lots' } }, 'server.body_limit', /not a size/);
  // A top-level section neither core nor a service plugin reads: refused as the typo it is.
  await expectConfigError(t, { sever: {} }, 'sever', /unknown section \(core's sections: server, .*mcp/);
  await expectConfigError(t, { logging: { format: 'text' } }, 'logging.format', /"auto"\|"pretty"\|"json"/);
  await expectConfigError(
    t,
    { server: { trusted_proxies: ['10.0.0.0/33'] } },
    'server.trusted_proxies',
    /10\.0\.0\.0\/33/,
  );
  await expectConfigError(
    t,
    { server: { real_ip_header: 'x-real-ip' } },
    'server.real_ip_header',
    /x-forwarded-for|forwarded/,
  );
  await expectConfigError(
    t,
    { routes: { 'modela-5.5': { targets: [{ upstream: 'missing' }] } } },
    'routes.modela-5.5.targets[0].upstream',
    /no upstream named "missing"/,
  );
  await expectConfigError(
    t,
    { video: { protocols: { 'native-c': {} } } },
    'video.protocols.native-c',
    /unknown video protocol/,
  );
  await expectConfigError(
    t,
    { video: { protocols: { generic: { models: [] } } } },
    'video.protocols.generic.models',
    /at least 1|too small|>=1/i,
  );
  await expectConfigError(
    t,
    { upstreams: { v: { plugin: 'videoa', base_url: 'http://a', poll: { concurrency: 0 } } } },
    'upstreams.v.poll.concurrency',
    /1/,
  );
  await expectConfigError(
    t,
    { prices: { 'videoa-*': { per_second: 'cheap' } } },
    'prices.videoa-*.per_second',
    /.+/,
  );
  await expectConfigError(
    t,
    { prices: { img: { per_image: { '1024x1024': 0.04, large: 0.08 } } } },
    'prices.img.per_image.large',
    /a size must be <width>x<height>, auto or \*/,
  );
  await expectConfigError(
    t,
    { prices: { img: { per_image: { '*': { '': 0.04 } } } } },
    'prices.img.per_image.*.',
    /a quality must be a non-empty string/,
  );
  await expectConfigError(
    t,
    { prices: { img: { per_image: { '1024x1024': { high: -1 } } } } },
    'prices.img.per_image.1024x1024.high',
    /0/,
  );
  await expectConfigError(
    t,
    { storage: { driver: 'mongodb', uri: 'http://not-mongo' } },
    'storage.uri',
    /mongodb:\/\//,
  );
  // Several instances on one MongoDB must hash keys alike; caught before any connection is tried.
  await expectConfigError(
    t,
    { storage: { driver: 'mongodb', uri: 'mongodb://127.0.0.1:1/?replicaSet=rs0' } },
    'storage.driver',
    /GATEWAY_KEY_SECRET/,
  );
});

t.test('storage: usage rotation size and queue bound, with defaults', (t) => {
  const doc = (storage: Record<string, unknown>) => ({ pipeline: ['auth'], storage });
  t.match(buildConfig({ pipeline: ['auth'] }, {}).storage, {
    driver: 'embedded',
    usage_rotate_size: 64 * 1024 * 1024,
    usage_queue_max: 100_000,
  });
  t.match(
    buildConfig(doc({ data_dir: '/tmp/x', usage_rotate_size: '16mb', usage_queue_max: 500 }), {}).storage,
    {
      usage_rotate_size: 16 * 1024 * 1024,
      usage_queue_max: 500,
    },
  );
  t.match(
    buildConfig(doc({ driver: 'mongodb', uri: 'mongodb://h/?replicaSet=rs0', usage_queue_max: 7 }), {})
      .storage,
    { driver: 'mongodb', usage_queue_max: 7 },
  );
  t.throws(() => buildConfig(doc({ usage_rotate_size: 0 }), {}), {
    path: 'storage.usage_rotate_size',
    message: /above 0/,
  });
  t.throws(() => buildConfig(doc({ usage_queue_max: 0 }), {}), {
    path: 'storage.usage_queue_max',
    message: /Too small/,
  });
  t.throws(
    () => buildConfig(doc({ driver: 'mongodb', uri: 'mongodb://h', usage_rotate_size: '1mb' }), {}),
    /usage_rotate_size/,
    'rotation is for the embedded files only',
  );
  t.end();
});

t.test(
  'storage: retention of finished tasks, usage and batch files; tasks never shorter than the idempotency window',
  (t) => {
    const doc = (storage: Record<string, unknown>, video: Record<string, unknown> = {}) => ({
      pipeline: ['auth'],
      storage,
      video,
    });
    const day = 24 * 3_600_000;
    t.match(buildConfig({ pipeline: ['auth'] }, {}).storage, { task_retention: 30 * day }, 'tasks: 30 days');
    t.match(
      buildConfig(doc({ driver: 'mongodb', uri: 'mongodb://h/?replicaSet=rs0' }), {}).storage,
      { task_retention: 30 * day, usage_retention: 0 },
      'usage records are kept unless told otherwise (they are the billing history)',
    );
    t.match(
      buildConfig(
        doc({ driver: 'mongodb', uri: 'mongodb://h', task_retention: 0, usage_retention: '400d' }),
        {},
      ).storage,
      { task_retention: 0, usage_retention: 400 * day },
    );
    t.throws(() => buildConfig(doc({ task_retention: '2h' }), {}), {
      path: 'storage.task_retention',
      message: /at least video.idempotency_window/,
    });
    t.match(
      buildConfig(doc({ task_retention: '2h' }, { idempotency_window: '1h' }), {}).storage,
      { task_retention: 2 * 3_600_000 },
      'a shorter idempotency window allows a shorter retention',
    );
    t.throws(
      () => buildConfig(doc({ usage_retention: '30d' }), {}),
      /usage_retention/,
      'the embedded usage files are kept whole (rotated by size)',
    );
    t.match(
      buildConfig({ pipeline: ['auth'] }, {}).storage,
      { batch_retention: 30 * day },
      'batch output files: 30 days, as OpenAI keeps them',
    );
    t.match(buildConfig(doc({ driver: 'mongodb', uri: 'mongodb://h', batch_retention: '7d' }), {}).storage, {
      batch_retention: 7 * day,
    });
    t.match(buildConfig(doc({ batch_retention: 0 }), {}).storage, { batch_retention: 0 }, '0 keeps them');
    t.end();
  },
);

t.test('a file with an unset variable names the variable and its place', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'gateway.yaml');
  await writeFile(
    file,
    'pipeline: [auth]\nupstreams:\n  a: { plugin: modela, base_url: "${NOT_SET_ANYWHERE}" }\n',
  );
  t.throws(() => loadConfigFile(file, {}), { path: 'upstreams.a.base_url', message: /NOT_SET_ANYWHERE/ });
  await writeFile(file, 'pipeline: [auth\n');
  t.throws(() => loadConfigFile(file, {}), /invalid YAML/);
});

t.test(
  "every error is reported: all of core's at once, then all of the plugin sections' at once",
  async (t) => {
    const dir = await tempDir(t);
    const core = t.throws(() =>
      buildConfig(
        {
          ...testConfig('http://127.0.0.1:1', dir),
          server: { port: -1 },
          limits: { m: { max_n: 0 } },
          video: { poller: 'sometimes' },
        },
        {},
      ),
    ) as ConfigError;
    t.strictSame(
      core.problems.map((p) => p.path).sort(),
      ['limits.m.max_n', 'server.port', 'video.poller'],
      "three problems of core's schema, each with its path",
    );
    const doc = testConfig('http://127.0.0.1:1', dir);
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    upstreams['modela-main']!.base_url = 'nope';
    upstreams['modelc-main']!.plugin = 'nope';
    doc.video = { protocols: { generic: { models: 'all' } } };
    doc.sever = {};
    doc.mcp = { servers: { a__b: { url: 'http://127.0.0.1:1/mcp' } } };
    let error: unknown;
    try {
      await startGateway(buildConfig(doc, {}));
    } catch (e) {
      error = e;
    }
    t.strictSame(
      (error as ConfigError).problems.map((p) => p.path),
      [
        'upstreams.modela-main.base_url',
        'upstreams.modelc-main.plugin',
        'video.protocols.generic.models',
        'sever',
        'mcp.servers.a__b',
      ],
      'every plugin block checked, across sections (and a section no one reads)',
    );
  },
);
