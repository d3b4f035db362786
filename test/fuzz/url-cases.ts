/**
 * URL and method cases: task queries with fuzzed ids (valid and malformed % escapes), unknown paths and
 * known ones with another method, odd methods and request targets written over a plain socket, bodies
 * framed ambiguously, and a request without Host. The gateway serves none of them except a few known
 * routes, so most must get a 4xx in the contract's error shape.
 */
import fc from 'fast-check';
import type { VideoProtocol } from './contract';
import { printable, type Auth, type FuzzCase } from './harness';

/** Where each protocol's task query lives, up to the id. */
const QUERY_PATHS: Readonly<Record<VideoProtocol, string>> = {
  generic: '/v1/videos/generations/',
  'native-a': '/api/v1/tasks/',
  'native-b': '/api/v3/contents/generations/tasks/',
};

const ID_CHARS = fc.constantFrom(
  ..."abcXYZ019-._~:@!$&'()*+,;=%".split(''),
  '%41',
  '%2F',
  '%00',
  '%ff',
  '%zz',
  '%e0%a4%a',
  '%c0%af',
  '%',
  '%%',
  '%2',
  '%ED%A0%80',
  '..',
  '/',
  '?x=%zz',
  '#f',
);

const decodes = (s: string): boolean => {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
};

/** The routes the gateway serves in the test configuration, with their methods. */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  '/v1/chat/completions': ['POST'],
  '/v1/messages': ['POST'],
  '/v1/images/generations': ['POST'],
  '/v1/models': ['GET'],
  '/v1/videos/generations': ['POST'],
  '/api/v1/services/aigc/video-generation/video-synthesis': ['POST'],
  '/api/v3/contents/generations/tasks': ['POST'],
};

const SEGMENTS = [
  'v1',
  'api',
  'v2',
  'v3',
  'chat',
  'completions',
  'models',
  'messages',
  'tasks',
  'videos',
  'generations',
  'admin',
  '_sim',
  '..',
  '.',
  '',
  'V1',
  '%2e%2e',
  'chat%2Fcompletions',
];

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
/** Methods node:http's parser knows but that are odd here, and ones it does not know at all. */
const ODD_METHODS = [
  'TRACE',
  'PROPFIND',
  'MKCOL',
  'SEARCH',
  'QUERY',
  'M-SEARCH',
  'PURGE',
  'CONNECT',
  'get',
  'FOO',
  'G ET',
];

export const urls: fc.Arbitrary<FuzzCase> = fc
  .oneof(
    // A task query with a fuzzed id (often with % escapes, valid or not).
    {
      weight: 5,
      arbitrary: fc
        .record({
          protocol: fc.constantFrom<VideoProtocol>('generic', 'native-a', 'native-b'),
          id: fc.array(ID_CHARS, { minLength: 1, maxLength: 12 }).map((a) => a.join('')),
          auth: fc.constantFrom<Auth>('bearer', 'bearer', 'bearer', 'none'),
        })
        .map(({ protocol, id, auth }): FuzzCase => {
          // The gateway decodes the id segment when the path has the route's shape (no `/` in the id).
          const segment = id.split('?')[0]!;
          const malformed = !segment.includes('/') && segment !== '' && !decodes(segment);
          return {
            api: 'query',
            method: 'GET',
            path: QUERY_PATHS[protocol] + id,
            headers: [],
            body: null,
            auth,
            expect: 'reject',
            kind: malformed ? 'bad-percent' : auth === 'none' ? 'auth' : 'task-id',
            why: `GET ${protocol} task ${JSON.stringify(id)}`,
          };
        }),
    },
    // An unknown path or a known one with another method.
    {
      weight: 3,
      arbitrary: fc
        .record({
          method: fc.constantFrom(...METHODS),
          segments: fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 5 }),
          known: fc.option(fc.constantFrom(...Object.keys(KNOWN)), { nil: undefined }),
          suffix: fc.constantFrom('', '/', '?a=%zz', '//', '%20', '.json'),
        })
        .map(({ method, segments, known, suffix }): FuzzCase => {
          const path = (known ?? '/' + segments.join('/')) + suffix;
          const bare = path.split('?')[0]!;
          const served = KNOWN[bare]?.includes(method) ?? false;
          return {
            api: 'route',
            method,
            path,
            headers: [['content-type', 'application/json']],
            body: method === 'GET' || method === 'HEAD' ? null : Buffer.from('{}'),
            auth: 'bearer',
            expect: served ? 'any' : 'reject',
            kind: KNOWN[bare] ? 'method' : 'unknown-path',
            why: `${method} ${path}`,
          };
        }),
    },
    // Odd methods and request targets, written over a plain socket.
    {
      weight: 2,
      arbitrary: fc
        .record({
          method: fc.constantFrom(...ODD_METHODS, 'GET', 'POST'),
          path: fc.constantFrom(
            ...Object.keys(KNOWN),
            '/v1/videos/generations/abc',
            '*',
            'http://127.0.0.1/v1/models',
            '/v1/models\u00ff',
            '/v1/chat/completions#x',
            '/v1/videos/generations/\u00e9',
          ),
        })
        .map(({ method, path }): FuzzCase => ({
          api: 'route',
          method,
          path,
          headers: [],
          body: null,
          auth: 'bearer',
          rawSocket: true,
          expect: KNOWN[path]?.includes(method) ? 'any' : 'reject',
          kind: METHODS.includes(method) ? 'raw-target' : 'odd-method',
          why: `${method} ${path} over a socket`,
        })),
    },
    // Bodies framed ambiguously: two Content-Lengths, or chunked and a length at once.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('two-lengths', 'chunked-and-length', 'bad-chunk', 'no-host')
        .map((how): FuzzCase => {
          const body = Buffer.from(
            JSON.stringify({ model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] }),
          );
          const n = String(body.length);
          const headers: [string, string][] =
            how === 'two-lengths'
              ? [
                  ['content-length', n],
                  ['content-length', String(body.length - 1)],
                ]
              : how === 'no-host'
                ? [['content-length', n]]
                : [
                    ['transfer-encoding', 'chunked'],
                    ['content-length', n],
                  ];
          const framed =
            how === 'bad-chunk'
              ? Buffer.from(`zz\r\n${body.toString()}\r\n0\r\n\r\n`)
              : how === 'chunked-and-length'
                ? Buffer.concat([
                    Buffer.from(`${body.length.toString(16)}\r\n`),
                    body,
                    Buffer.from('\r\n0\r\n\r\n'),
                  ])
                : body;
          return {
            api: 'route',
            method: 'POST',
            path: '/v1/chat/completions',
            headers: [
              ['content-type', 'application/json'],
              ...(how === 'bad-chunk' ? [['transfer-encoding', 'chunked'] as [string, string]] : headers),
            ],
            body: framed,
            auth: 'bearer',
            rawSocket: true,
            ...(how === 'no-host' ? { noHost: true } : {}),
            // With both, Transfer-Encoding wins (RFC 9112 §6.3), or the server refuses: either is fine.
            expect: how === 'chunked-and-length' ? 'any' : 'reject',
            kind: how === 'no-host' ? 'no-host' : 'framing',
            why: `${how} over a socket`,
          };
        }),
    },
  )
  .map(printable);
