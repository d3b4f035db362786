/**
 * The operators' console: the page at `/` and its built assets at `/console/<file>`, public (they hold
 * no secrets; every API call the page makes carries the admin token or a single sign-on session's
 * cookie). The files are the bundle
 * `npm run build` writes (console/build.ts), read once at start-up into memory: a request can only name
 * one of those files, so no path (`..`, encoded slashes, absolute paths) can reach anything else on disk.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { extname, join } from 'node:path';
import type { ServerResponse } from 'node:http';

/**
 * From dist/core/admin/ (compiled) to dist/console-bundle/: beside the compiled code it goes with, so a
 * build is one folder, and apart from dist/console/ (the build script's own output), which must never be
 * served.
 */
export const CONSOLE_BUILD_DIR = join(__dirname, '..', '..', 'console-bundle');

/** Same-origin only, nothing inline, no framing, no forms posting anywhere. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

export class ConsoleAssets {
  private readonly files = new Map<string, Asset>();

  /** Reads the top level of `dir` (the bundle is flat); a missing folder serves nothing. */
  constructor(dir: string = CONSOLE_BUILD_DIR) {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)];
      const path = join(dir, name);
      if (!type || !statSync(path).isFile()) continue;
      const body = readFileSync(path);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      this.files.set(name, { body, type, etag });
    }
  }

  /** The asset a GET path names: `/` is the page, `/console/<name>` a built file; else undefined. */
  lookup(pathname: string): Asset | undefined {
    if (pathname === '/' || pathname === '/index.html') return this.files.get('index.html');
    const match = /^\/console\/([A-Za-z0-9_-]+\.[a-z]+)$/.exec(pathname);
    return match ? this.files.get(match[1]!) : undefined;
  }

  /** Answers with the asset and the console's security headers; revalidated on every load. */
  send(res: ServerResponse, asset: Asset, ifNoneMatch: string | undefined, head: boolean): void {
    const headers = {
      'content-type': asset.type,
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cache-control': 'no-cache',
      etag: asset.etag,
    };
    if (ifNoneMatch === asset.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': asset.body.length });
    res.end(head ? undefined : asset.body);
  }
}
