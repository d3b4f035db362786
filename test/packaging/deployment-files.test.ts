/**
 * The Dockerfile, compose.yaml and deploy/gateway.yaml, checked without a Docker engine: every
 * environment variable they set for the gateway is one it reads (a misspelt one would be ignored in
 * silence), the deployment's configuration is the shipped one on MongoDB, the image runs the compiled
 * code and serves the console as the build stage bundled it, as a non-root user under an init process
 * with a health check, and the several-instances commands of docs/operations.md are the compose file's.
 */
import t from 'tap';
import { isDeepStrictEqual } from 'node:util';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { buildConfig } from '../../config/load';
import { CONSOLE_BUILD_DIR } from '../../core/admin/console-assets';

const ROOT = join(__dirname, '..', '..', '..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

/** Variables the gateway reads: `env.X` / `env['X']` in its code, `${X}` in its configuration files. */
function variablesRead(): Set<string> {
  const read_ = new Set<string>();
  for (const file of ['lib', 'core', 'config', 'cli', 'plugins', 'simulator'].flatMap(sources)) {
    const text = read(file);
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)) read_.add(m[1]!);
    for (const m of text.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g)) read_.add(m[1]!);
  }
  for (const file of ['gateway.yaml', 'deploy/gateway.yaml']) {
    for (const m of read(file).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) read_.add(m[1]!);
  }
  return read_;
}

/** `ENV A=1 B=2` and `ENV A 1` lines of the Dockerfile. */
function dockerfileEnv(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^ENV\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    const rest = m[1]!;
    if (rest.includes('='))
      for (const pair of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)) names.push(pair[1]!);
    else names.push(rest.split(/\s+/)[0]!);
  }
  return names;
}

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Record<string, unknown> | string[];
  command?: string[] | string;
}

const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
/** The services that run the gateway's image (the others are MongoDB's and Redis' own). */
const ours = Object.entries(compose.services).filter(
  ([, s]) => s.build !== undefined || s.image === 'model-gateway',
);

t.test('every variable the Dockerfile and compose.yaml set is one the gateway reads', (t) => {
  const known = variablesRead();
  for (const expected of [
    'PORT',
    'ADMIN_PORT',
    'GATEWAY_CONFIG',
    'GATEWAY_DATA_DIR',
    'MONGODB_URI',
    'REDIS_URL',
  ])
    t.ok(known.has(expected), `the scan finds ${expected}`);
  const dockerfile = dockerfileEnv(read('Dockerfile'));
  t.ok(dockerfile.length > 0, 'the Dockerfile sets some');
  for (const name of dockerfile) t.ok(known.has(name), `Dockerfile: ${name} is read`);
  t.ok(ours.length >= 4, 'three gateways and the deploy step run the image');
  for (const [service, { environment = {} }] of ours) {
    const names = Array.isArray(environment)
      ? environment.map((e) => e.split('=')[0]!)
      : Object.keys(environment);
    for (const name of names) t.ok(known.has(name), `compose.yaml ${service}: ${name} is read`);
  }
  t.end();
});

t.test(
  'compose.yaml: three gateways, Redis, a three-member replica set, the deploy step before the gateways',
  (t) => {
    const { services } = compose;
    const gateways = Object.keys(services).filter((name) => name.startsWith('gateway-'));
    t.equal(gateways.length, 3);
    const mongos = Object.values(services).filter((s) =>
      (s.command as string[] | undefined)?.includes('--replSet'),
    );
    t.equal(mongos.length, 3, 'three mongod members of one replica set');
    t.match(
      JSON.stringify(services['mongo-init']?.command),
      /rs\.initiate\(.*mongo-1:27017.*mongo-2:27017.*mongo-3:27017/,
    );
    t.strictSame(services['deploy-indexes']?.command, ['npm', 'run', 'stores', '--', 'indexes']);
    for (const name of gateways) {
      t.match(services[name], {
        depends_on: {
          'deploy-indexes': { condition: 'service_completed_successfully' },
          redis: { condition: 'service_healthy' },
        },
      });
    }
    t.end();
  },
);

t.test('deploy/gateway.yaml is the shipped file with storage on MongoDB, and loads', (t) => {
  const shipped = parse(read('gateway.yaml')) as Record<string, unknown>;
  const deployed = parse(read('deploy/gateway.yaml')) as Record<string, unknown>;
  const withoutStorage = (doc: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(doc).filter(([section]) => section !== 'storage'));
  const storage = deployed.storage;
  const stale = differences(withoutStorage(shipped), withoutStorage(deployed));
  t.strictSame(
    stale,
    [],
    `everything but storage as in gateway.yaml: copy ${stale.join(', ')} from gateway.yaml into deploy/gateway.yaml`,
  );
  t.match(storage, { driver: 'mongodb', uri: '${MONGODB_URI}' });
  const mongodbUri = compose.services['gateway-1']?.environment as Record<string, string>;
  const config = buildConfig(deployed, { MONGODB_URI: mongodbUri.MONGODB_URI }, join(ROOT, 'deploy'));
  t.match(config.storage, { driver: 'mongodb', uri: /replicaSet=rs0$/ });
  t.end();
});

t.test(
  'the Dockerfile: built in a stage of its own, run as compiled code, non-root, under tini, with a health check',
  (t) => {
    const text = read('Dockerfile');
    const stages = text.split(/^FROM /m).slice(1);
    t.equal(stages.length, 2, 'a build stage and a runtime stage');
    const [build, runtime] = stages as [string, string];
    t.match(build, /RUN npm ci\b[^\n]*\n[\s\S]*RUN npm run build/);
    t.match(runtime, /RUN npm ci --omit=dev --omit=optional/);
    t.match(runtime, /^USER node$/m);
    t.match(runtime, /^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    t.match(runtime, /^CMD \["node", "dist\/core\/main\.js"\]$/m);
    t.match(runtime, /^HEALTHCHECK [\s\S]*\/healthz/m);
    t.match(runtime, /^EXPOSE 8080$/m);
    for (const m of runtime.matchAll(/^COPY --from=build \/app\/(\S+) /gm)) {
      t.ok(existsSync(join(ROOT, m[1]!)), `${m[1]} exists after npm run build`);
    }
    for (const m of runtime.matchAll(/^COPY (?!--)(\S+) /gm)) {
      t.ok(existsSync(join(ROOT, m[1]!)), `${m[1]} is in the repository`);
    }
    const bundle = relative(ROOT, CONSOLE_BUILD_DIR);
    t.match(runtime, new RegExp(`^COPY --from=build /app/${bundle} ${bundle}$`, 'm'), 'the console as built');
    t.ok(statSync(CONSOLE_BUILD_DIR).isDirectory());
    t.end();
  },
);

t.test("docs/operations.md's several-instances commands are compose.yaml's", (t) => {
  const operations = read('docs/operations.md');
  const section = operations.slice(
    operations.indexOf('## Several instances'),
    operations.indexOf('### MongoDB: the deploy step'),
  );
  const composeText = read('compose.yaml');
  t.match(section, /GATEWAY_KEY_SECRET=\$\(openssl rand -hex 32\) docker compose up -d --build/);
  t.ok(composeText.includes('GATEWAY_KEY_SECRET=$(openssl rand -hex 32) docker compose up -d --build'));
  const uri = (compose.services['gateway-1']?.environment as Record<string, string>).MONGODB_URI ?? 'unset';
  t.ok(section.includes(uri), 'the MONGODB_URI docs/operations.md gives is the one compose sets');
  t.ok(section.includes('npm run stores -- indexes'), 'the deploy step, as compose runs it');
  for (const port of ['8080', '8082', '8083'])
    t.ok(section.includes(`:${port}`), `docs/operations.md names port ${port}`);
  t.end();
});

/** The entries (a section, or one key of a section) where `copy` differs from `source`, as paths. */
function differences(source: Record<string, unknown>, copy: Record<string, unknown>): string[] {
  const keys = (a: unknown, b: unknown) => [
    ...new Set([...Object.keys(a as object), ...Object.keys(b as object)]),
  ];
  const isMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  return keys(source, copy).flatMap((section) => {
    const [a, b] = [source[section], copy[section]];
    if (isDeepStrictEqual(a, b)) return [];
    if (!isMap(a) || !isMap(b)) return [section];
    const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
    return keys(x, y)
      .filter((key) => !isDeepStrictEqual(x[key], y[key]))
      .map((key) => `${section}.${key}`);
  });
}
