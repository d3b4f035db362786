/**
 * modela's Files API as batches use it, with the official `openai` SDK where it can go: a batch file
 * uploaded, described, read back byte for byte and deleted; unknown ids 404 in OpenAI's error shape; and
 * uploads that are not a good form, or not a batch file, refused with 400.
 */
import t from 'tap';
import type OpenAI from 'openai';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { MODELA_KEY, openAiClient, rejection, upload, type Json } from './batch-client';
import { errorShape } from './helpers';

let sim: RunningSimulator;
let client: OpenAI;
t.before(async () => {
  sim = await startSimulator();
  client = openAiClient(sim);
});
t.teardown(() => sim.close());

const URL_PATH = '/modela/v1/files';
// Multi-byte text, so the bytes and the characters differ.
const TEXT = '{"custom_id":"a","note":"温度 — 1"}\n';

void t.test('a file is uploaded, described, read back and deleted', async (t) => {
  const created = await upload(client, TEXT);
  t.strictSame(Object.keys(created), [
    'id',
    'object',
    'bytes',
    'created_at',
    'filename',
    'purpose',
    'status',
    'status_details',
    'expires_at',
  ]);
  t.match(created, {
    id: /^file-/,
    object: 'file',
    bytes: Buffer.byteLength(TEXT),
    filename: 'in.jsonl',
    purpose: 'batch',
    status: 'processed',
    status_details: null,
  });
  t.equal(created.expires_at, created.created_at + 30 * 86_400, 'kept 30 days, as batch files are');
  t.strictSame(await client.files.retrieve(created.id), created);
  const content = await client.files.content(created.id);
  t.equal(content.headers.get('content-type'), 'application/octet-stream');
  t.equal(Buffer.from(await content.arrayBuffer()).toString('utf8'), TEXT, 'byte for byte');
  t.strictSame(await client.files.delete(created.id), { id: created.id, object: 'file', deleted: true });
  t.match(await rejection(client.files.retrieve(created.id)), { status: 404 }, 'gone');
});

void t.test('an unknown id is a 404 in OpenAI’s error shape', async (t) => {
  const error = {
    message: 'No such File object: file-nope',
    type: 'invalid_request_error',
    param: 'id',
    code: null,
  };
  t.match(await rejection(client.files.retrieve('file-nope')), { status: 404, error });
  t.match(await rejection(client.files.content('file-nope')), { status: 404, error });
  t.match(await rejection(client.files.delete('file-nope')), { status: 404, error });
});

/** POSTs a body to the files route with modela's key. */
async function post(body: string | FormData, contentType?: string): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { authorization: `Bearer ${MODELA_KEY}` };
  if (contentType) headers['content-type'] = contentType;
  const res = await fetch(sim.url + URL_PATH, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A form as fetch encodes it: `purpose`, and the file under `field`. */
function form(purpose: string | null, name: string | null, field = 'file'): FormData {
  const data = new FormData();
  if (purpose !== null) data.set('purpose', purpose);
  if (name !== null) data.set(field, new Blob([TEXT]), name);
  return data;
}

const BOUNDARY = 'sim-boundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
/** A form whose last part never ends. */
const CUT_SHORT = [
  `--${BOUNDARY}`,
  'content-disposition: form-data; name="purpose"',
  '',
  'batch',
  `--${BOUNDARY}`,
  'content-disposition: form-data; name="file"; filename="in.jsonl"',
  'content-type: application/jsonl',
  '',
  '{"custom_id":',
].join('\r\n');

void t.test('an upload that is not a good form is refused with 400', async (t) => {
  const cases: [string, () => Promise<{ status: number; body: Json }>, RegExp | string][] = [
    ['a form cut short', () => post(CUT_SHORT, MULTIPART), /multipart\/form-data/],
    ['a form without its boundary', () => post(CUT_SHORT, 'multipart/form-data'), /multipart\/form-data/],
    ['JSON', () => post(JSON.stringify({ purpose: 'batch' }), 'application/json'), /multipart\/form-data/],
    ['no file part', () => post(form('batch', null)), "Missing required parameter: 'file'."],
    ['the file under another name', () => post(form('batch', 'in.jsonl', 'upload')), /'file'/],
    ['no purpose', () => post(form(null, 'in.jsonl')), "Missing required parameter: 'purpose'."],
    ['another purpose', () => post(form('fine-tune', 'in.jsonl')), /'purpose'/],
    ['not .jsonl', () => post(form('batch', 'in.txt')), 'Invalid file format for Batch API. Must be .jsonl'],
  ];
  for (const [name, send, message] of cases) {
    const res = await send();
    t.equal(res.status, 400, name);
    t.match(res.body, errorShape('modela', 400), `${name}: OpenAI's error shape`);
    t.match(res.body, { error: { message, type: 'invalid_request_error' } }, name);
  }
  t.equal(sim.batches.files.list().length, 0, 'nothing was kept');
});

void t.test('the SDK’s own upload takes any name ending in .jsonl, and the log shows the form', async (t) => {
  const created = await upload(client, TEXT, 'nightly run.jsonl');
  t.equal(created.filename, 'nightly run.jsonl');
  const logged = sim.log.list().findLast((e) => e.path === URL_PATH);
  t.match(logged, { status: 200, body: /name="purpose"/ }, 'a form is logged as its text');
});
