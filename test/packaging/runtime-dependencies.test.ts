/**
 * A production install (`npm ci --omit=dev`, `--omit=optional` too) has what `npm start`, the CLI and
 * the bundled simulator load: in the compiled code they run, every package required at load time is a
 * dependency, one loaded lazily (`await import`) a dependency or an optional one, and none a dev
 * dependency. The end-to-end proof is test/e2e/production-start.test.ts; this one names the file.
 */
import t from 'tap';
import { builtinModules } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const DIST = join(ROOT, 'dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);

/** tsc's CommonJS form of `await import('x')`. */
const LAZY = /Promise\.resolve\(\)\.then\(\(\) => __importStar\(require\((['"])([^'"]+)\1\)\)\)/g;
const ANY = /\brequire\((['"])([^'"]+)\1\)/g;

function requires(text: string): { eager: string[]; lazy: string[] } {
  const lazy = [...text.matchAll(LAZY)].map((m) => m[2]!);
  const eager = [...text.replace(LAZY, '').matchAll(ANY)].map((m) => m[2]!);
  const bare = (list: string[]) => list.filter((s) => !s.startsWith('.') && !isBuiltin(s)).map(packageOf);
  return { eager: bare(eager), lazy: bare(lazy) };
}

t.test(
  'what lib, core, plugins, config, cli and the simulator load is installed without dev dependencies',
  (t) => {
    const optional = new Set(Object.keys(pkg.optionalDependencies ?? {}));
    const regular = new Set(Object.keys(pkg.dependencies));
    let files = 0;
    for (const dir of ['lib', 'core', 'plugins', 'config', 'cli', 'simulator']) {
      for (const rel of readdirSync(join(DIST, dir), { recursive: true, encoding: 'utf8' })) {
        if (!rel.endsWith('.js')) continue;
        files++;
        const file = `${dir}/${rel}`;
        const { eager, lazy } = requires(readFileSync(join(DIST, dir, rel), 'utf8'));
        for (const name of eager) t.ok(regular.has(name), `${file} requires ${name} at load: a dependency`);
        for (const name of lazy) {
          t.ok(
            regular.has(name) || optional.has(name),
            `${file} imports ${name} lazily: (optionally) a dependency`,
          );
        }
      }
    }
    t.ok(files > 100, `${files} compiled files read`);
    t.ok(optional.has('sharp') && !regular.has('sharp'), 'sharp is optional');
    t.end();
  },
);
