/**
 * The golden answers are what test/kit/fixtures/SOURCES.md says they are: each derived file is its
 * recording with exactly the stated change, so a derived answer can differ from the vendor's in nothing
 * else. (Each hand-written error body is checked against its vendor's documented shape by the family's
 * kit run, which declares that shape.)
 */
import t from 'tap';
import { bytesOf, golden, recorded } from './fake-upstream';

const text = (answer: ReturnType<typeof golden>): string => bytesOf(answer).toString('utf8');

/** A stream's events, each with the blank line that ends it. */
const events = (sse: string): string[] => sse.split(/(?<=\n\n)/);
const withoutEvents = (marker: string) => (sse: string) =>
  events(sse)
    .filter((e) => !e.includes(marker))
    .join('');
const firstEvents =
  (n: number, then = '') =>
  (sse: string) =>
    events(sse).slice(0, n).join('') + then;
const replaced = (from: string, to: string) => (s: string) => {
  if (s.split(from).length !== 2) throw new Error(`'${from}' is not in the source exactly once`);
  return s.replace(from, to);
};

const VIDEOB_FAILURE = `"status": "failed",
  "error": {
    "code": "OutputVideoSensitiveContentDetected.PolicyViolation",
    "message": "The request failed because the output video may be related to copyright restrictions."
  }`;

const OPENAI_STREAM_ERROR =
  'data: {"error":{"message":"The server had an error while processing your request. Sorry about that!",' +
  '"type":"server_error","param":null,"code":null}}\n\n';
const COHERE_STREAM_ERROR = '"finish_reason":"ERROR","error":"internal server error"';
const MESSAGES_STREAM_ERROR =
  'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';

/** Each embedding's float array, as OpenAI's base64 (float32 little-endian) in a JSON string. */
const base64Embeddings = (s: string): string =>
  s.replace(/("embedding": )\[([^\]]*)\]/g, (_, key: string, list: string) => {
    const values = list.split(',').map(Number);
    const bytes = Buffer.alloc(values.length * 4);
    values.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
    return `${key}"${bytes.toString('base64')}"`;
  });

/** Derived file, its recording, and the change. */
const DERIVED: readonly [string, string, (source: string) => string][] = [
  ...['PENDING', 'RUNNING', 'SUSPENDED', 'CANCELED'].map((w): [string, string, (s: string) => string] => [
    `videoa/poll-${w.toLowerCase()}.json`,
    'videoa/poll-unknown.json',
    replaced('"task_status": "UNKNOWN"', `"task_status": "${w}"`),
  ]),
  ...['queued', 'running', 'cancelled', 'expired'].map((w): [string, string, (s: string) => string] => [
    `videob/poll-${w}.json`,
    'videob/poll-succeeded.json',
    replaced('"status": "succeeded"', `"status": "${w}"`),
  ]),
  [
    'videob/poll-failed.json',
    'videob/poll-succeeded.json',
    replaced('"status": "succeeded"', VIDEOB_FAILURE),
  ],
  [
    'modela/json-no-usage.json',
    'modela/json.json',
    (s) => s.replace(/\n {2}"usage": \{\n[\s\S]*?\n {2}\},/, ''),
  ],
  ['modela/stream-no-usage.sse', 'modela/stream-include-usage.sse', withoutEvents('"choices":[],"usage"')],
  ['modela/stream-cut.sse', 'modela/stream-include-usage.sse', firstEvents(6)],
  ['modela/stream-error.sse', 'modela/stream-include-usage.sse', firstEvents(6, OPENAI_STREAM_ERROR)],
  [
    'modelb/stream-no-usage.sse',
    'modelb/stream-cumulative-usage.sse',
    (s) => s.replace(/,"usage":\{[^{}]*\}/g, ''),
  ],
  ['modelb/stream-cut.sse', 'modelb/stream-cumulative-usage.sse', firstEvents(2)],
  ['modelc/stream-no-usage.sse', 'modelc/stream-reasoning.sse', withoutEvents('"choices":[],')],
  ['modelc/stream-cut.sse', 'modelc/stream-reasoning.sse', firstEvents(6)],
  ['modeld/stream-cut-before-usage.sse', 'modeld/stream-text.sse', firstEvents(7)],
  ['modeld/stream-cut-after-usage.sse', 'modeld/stream-text.sse', firstEvents(8)],
  ['modeld/stream-error-overloaded.sse', 'modeld/stream-text.sse', firstEvents(5, MESSAGES_STREAM_ERROR)],
  [
    'modelf/stream-max-tokens.sse',
    'modelf/stream.sse',
    replaced('"finish_reason":"COMPLETE"', '"finish_reason":"MAX_TOKENS"'),
  ],
  ['modelf/stream-cut.sse', 'modelf/stream.sse', firstEvents(6)],
  [
    'modelf/stream-error.sse',
    'modelf/stream.sse',
    replaced('"finish_reason":"COMPLETE"', COHERE_STREAM_ERROR),
  ],
  ['modelc/embeddings-base64.json', 'modelc/embeddings-doc-example.json', base64Embeddings],
  [
    'modelb-image/json-no-usage.json',
    'modelb-image/openai-images-doc-example.json',
    (s) => s.replace(/,\n {2}"usage": \{\n[\s\S]*?\n {2}\}/, ''),
  ],
];

void t.test('each derived answer is its recording with only the stated change', (t) => {
  for (const [file, source, change] of DERIVED) {
    t.equal(text(golden(file)), change(text(recorded(source))), `${file} from ${source}`);
  }
  t.end();
});

/** A recorded Responses stream (one event's data a line) framed as the API sends it, named by its type. */
const framed = (jsonl: string): string =>
  jsonl
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join('');

/**
 * Derived from another golden file: a written answer, or a recorded client answer of the Responses API
 * (kept with the kit's fixtures, test/kit/fixtures/responses/).
 */
const DERIVED_FROM_GOLDEN: readonly [string, string, (source: string) => string][] = [
  ['modelb/embeddings-base64.json', 'modelb/embeddings-no-usage.json', base64Embeddings],
  ['modela/responses-stream-text.sse', 'responses/stream-text.jsonl', framed],
  ['modela/responses-stream-function-call.sse', 'responses/stream-function-call.jsonl', framed],
  ['modela/responses-stream-error.sse', 'responses/stream-error.jsonl', framed],
  ['modela/responses-stream-cut.sse', 'responses/stream-text.jsonl', (s) => firstEvents(5)(framed(s))],
];

void t.test('each answer derived from another golden one is it with only the stated change', (t) => {
  for (const [file, source, change] of DERIVED_FROM_GOLDEN) {
    t.equal(text(golden(file)), change(text(golden(source))), `${file} from ${source}`);
  }
  t.end();
});
