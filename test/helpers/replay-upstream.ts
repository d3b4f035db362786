/**
 * A real HTTP server for tests that replays a recorded upstream response body from test/fixtures.
 *
 * `.sse` fixtures go out as `text/event-stream`, cut into small pieces of varying sizes (so events,
 * lines and multi-byte UTF-8 characters are split across writes), with a turn of the event loop
 * between writes; `.json` fixtures go out as `application/json` in one write. Every request is
 * recorded (method, url, headers, body) so a test can assert what the gateway sent upstream.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Teardown } from './gateway';

/** The source tree's test/fixtures, found from dist/test/helpers where the compiled tests run. */
export const FIXTURES_DIR = join(__dirname, '..', '..', '..', 'test', 'fixtures');

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface ReplayAnswer {
  /** HTTP status; 200 unless given. */
  readonly status?: number;
  /** Path under test/fixtures, e.g. `modela/stream-include-usage.sse`. */
  readonly fixture: string;
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ReplayUpstream {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Requests in the order they arrived. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Reads a fixture's exact bytes. */
export function readFixture(name: string): Buffer {
  return readFileSync(join(FIXTURES_DIR, name));
}

/** Piece sizes cycle through these, so boundaries land everywhere: inside `data:`, between the two
 *  newlines of an event boundary, inside JSON and inside multi-byte characters. */
const PIECE_SIZES = [1, 7, 2, 13, 3, 64, 5, 1, 29, 11, 4, 97];

function pieces(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = PIECE_SIZES[i % PIECE_SIZES.length] ?? 1;
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function writeSse(res: ServerResponse, bytes: Buffer): Promise<void> {
  for (const piece of pieces(bytes)) {
    if (res.destroyed) return;
    res.write(piece);
    await nextTurn();
  }
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Starts the replay server on 127.0.0.1 (a free port) and closes it at teardown. `route` picks the
 * answer for each request; it may look at the recorded request (method, url, headers, body).
 */
export async function startReplayUpstream(
  t: Teardown,
  route: (req: RecordedRequest) => ReplayAnswer,
): Promise<ReplayUpstream> {
  const requests: RecordedRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: await readBody(req),
    };
    requests.push(recorded);
    const answer = route(recorded);
    const bytes = readFixture(answer.fixture);
    const sse = answer.fixture.endsWith('.sse');
    res.writeHead(answer.status ?? 200, {
      'content-type': sse ? 'text/event-stream' : 'application/json',
      ...(sse ? { 'cache-control': 'no-cache' } : { 'content-length': String(bytes.length) }),
      ...answer.headers,
    });
    if (sse) {
      res.flushHeaders();
      await writeSse(res, bytes);
    } else {
      res.end(bytes);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`replay upstream: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closed;
  };
  t.teardown(close);

  return { url: `http://127.0.0.1:${port}`, requests, close };
}
