/**
 * The console's page and assets from the admin listener: security headers, nothing inline, public
 * assets but a guarded API, no path outside the built folder, and that what it serves is what the
 * sources build to.
 */
import t from 'tap';
import { request } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestGateway, tempDir } from '../helpers/gateway';
import { CONSOLE_BUILD_DIR, CONSOLE_CSP } from '../../core/admin/console-assets';
import { buildConsole } from '../../console/build';

/** A GET with the path sent exactly as given (fetch would resolve `..` before sending). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string; bytes: Buffer }>(
    (resolve, reject) => {
      const req = request({ hostname, port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
        });
      });
      req.on('error', reject);
      req.end();
    },
  );
}

t.test('the page and its assets: strict CSP, nosniff, nothing inline, no token needed', async (t) => {
  const gw = await startTestGateway(t);
  const page = await rawGet(gw.gateway.adminUrl, '/');
  t.equal(page.status, 200);
  t.match(page.headers['content-type'], /^text\/html/);
  t.equal(page.headers['content-security-policy'], CONSOLE_CSP);
  t.match(CONSOLE_CSP, /default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'/);
  t.match(CONSOLE_CSP, /frame-ancestors 'none'; base-uri 'none'; form-action 'none'/);
  t.equal(page.headers['x-content-type-options'], 'nosniff');
  const scripts = page.body.match(/<script\b[^>]*>/g) ?? [];
  t.ok(
    scripts.length > 0 && scripts.every((s) => /\ssrc="\/console\//.test(s)),
    'every script is a built file',
  );
  t.notMatch(page.body, /<script\b[^>]*>[^<\s]/, 'no inline script');
  t.notMatch(page.body, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or handler');
  t.notMatch(page.body, /https?:\/\//, 'no other origin');

  for (const [name, type] of [
    ['console.js', /^text\/javascript/],
    ['console.css', /^text\/css/],
  ] as const) {
    const asset = await rawGet(gw.gateway.adminUrl, `/console/${name}`);
    t.equal(asset.status, 200, `${name} is served without a token`);
    t.match(asset.headers['content-type'], type);
    t.equal(asset.headers['x-content-type-options'], 'nosniff');
    const again = await rawGet(gw.gateway.adminUrl, `/console/${name}`, {
      'if-none-match': String(asset.headers.etag),
    });
    t.equal(again.status, 304, `${name} revalidates by etag`);
  }
  t.equal((await rawGet(gw.gateway.adminUrl, '/admin/keys')).status, 401, 'the API still wants the token');
});

t.test('no path leaves the built folder', async (t) => {
  const gw = await startTestGateway(t);
  const paths = [
    '/console/../package.json',
    '/console/../../package.json',
    '/console/..%2f..%2fpackage.json',
    '/console/%2e%2e/%2e%2e/package.json',
    '/console/..\\..\\package.json',
    '/console//etc/passwd',
    '/console/%2fetc%2fpasswd',
    '/console/src/main.ts',
    '/console/main.ts',
    '/console/',
    '/console/.',
    '/console/console.js%00.html',
    '/console/index.html/..',
  ];
  for (const path of paths) {
    const res = await rawGet(gw.gateway.adminUrl, path);
    t.equal(res.status, 404, `${path} → 404`);
    t.notMatch(res.body, /"name": "model-gateway"|root:|import /, `${path}: no file content`);
  }
});

t.test('the page and assets served are what the sources build to', async (t) => {
  const fresh = await tempDir(t, 'console-build-');
  const files = await buildConsole(fresh);
  t.strictSame(files, ['console.css', 'console.js', 'index.html']);
  t.strictSame((await readdir(CONSOLE_BUILD_DIR)).sort(), files, 'npm run build wrote the same files');
  const gw = await startTestGateway(t);
  for (const name of files) {
    const served = await rawGet(gw.gateway.adminUrl, name === 'index.html' ? '/' : `/console/${name}`);
    t.equal(served.status, 200, `${name} is served`);
    const same = served.bytes.equals(await readFile(join(fresh, name)));
    t.ok(same, `${name} as served matches a fresh build of console/src (else run npm run build)`);
  }
});
