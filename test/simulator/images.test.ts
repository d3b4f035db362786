import sharp, { type Metadata } from 'sharp';
import t, { type Test } from 'tap';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { errorShape } from './helpers';

const PATH = '/modelb/v1beta/openai/images/generations';
const KEY = 'sim-modelb-key';
const MODEL = 'modelb-3.1-flash-image-preview';

/** The images response as a client reads it. */
interface ImagesResponse {
  created: number;
  data: { b64_json: string }[];
  usage?: {
    total_tokens: number;
    input_tokens: number;
    output_tokens: number;
    input_tokens_details: { text_tokens: number; image_tokens: number };
    output_tokens_details: { image_tokens: number; text_tokens: number };
  };
}

let sim: RunningSimulator;
t.before(async () => {
  sim = await startSimulator();
});
t.teardown(() => sim.close());

/** POSTs an image request with modelb's key (override with an `authorization` header). */
function generate(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(sim.url + PATH, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** A 200 answer's body; fails the test on any other status. */
async function images(t: Test, body: object, headers?: Record<string, string>): Promise<ImagesResponse> {
  const res = await generate({ model: MODEL, ...body }, headers);
  t.equal(res.status, 200, JSON.stringify(body));
  return (await res.json()) as ImagesResponse;
}

/** What sharp reads from one `b64_json`. */
const decode = (image: { b64_json: string } | undefined): Promise<Metadata> =>
  sharp(Buffer.from(image?.b64_json ?? '', 'base64')).metadata();

void t.test('default: one 1024x1024 png and gpt-image usage', async (t) => {
  const started = Date.now();
  const body = await images(t, { prompt: 'a sheepadoodle in a cape' });
  t.comment(`default image took ${Date.now() - started}ms`);
  t.equal(body.data.length, 1);
  t.ok(Math.abs(body.created - Date.now() / 1000) < 60, 'created is unix seconds');
  t.match(await decode(body.data[0]), { format: 'png', width: 1024, height: 1024, hasAlpha: false });
  // 24 characters → 6 input tokens; 1024 × 1024 / 1024 = 1024 output tokens.
  t.strictSame(body.usage, {
    total_tokens: 1030,
    input_tokens: 6,
    output_tokens: 1024,
    input_tokens_details: { text_tokens: 6, image_tokens: 0 },
    output_tokens_details: { image_tokens: 1024, text_tokens: 0 },
  });
});

void t.test('each output_format at a non-square size', async (t) => {
  for (const format of ['png', 'jpeg', 'webp']) {
    const body = await images(t, { prompt: 'p', size: '320x200', output_format: format });
    t.match(await decode(body.data[0]), { format, width: 320, height: 200 }, format);
  }
  const lossy = await images(t, { prompt: 'p', size: '64x48', output_format: 'jpeg', output_compression: 0 });
  t.match(
    await decode(lossy.data[0]),
    { format: 'jpeg', width: 64, height: 48 },
    'compression 0 still encodes',
  );
});

void t.test('n=3 gives three different images and triples output tokens', async (t) => {
  const body = await images(t, { prompt: 'three', n: 3, size: '64x64' });
  t.equal(body.data.length, 3);
  t.equal(new Set(body.data.map((d) => d.b64_json)).size, 3, 'each image differs');
  for (const image of body.data) t.match(await decode(image), { format: 'png', width: 64, height: 64 });
  t.match(body.usage, { output_tokens: 12, output_tokens_details: { image_tokens: 12 } });
});

void t.test('the same prompt draws the same image', async (t) => {
  const [a, b] = await Promise.all([
    images(t, { prompt: 'same', size: '32x32' }),
    images(t, { prompt: 'same', size: '32x32' }),
  ]);
  t.equal(a.data[0]?.b64_json, b.data[0]?.b64_json);
});

void t.test('transparent background has an alpha channel in png and webp', async (t) => {
  for (const format of ['png', 'webp']) {
    const body = await images(t, {
      prompt: 'p',
      size: '100x80',
      output_format: format,
      background: 'transparent',
    });
    t.match(await decode(body.data[0]), { format, width: 100, height: 80, hasAlpha: true }, format);
  }
  const opaque = await images(t, { prompt: 'p', size: '100x80', background: 'opaque' });
  t.match(await decode(opaque.data[0]), { hasAlpha: false });
});

void t.test('ignored fields are accepted', async (t) => {
  const body = await images(t, {
    prompt: 'p',
    size: 'auto',
    response_format: 'b64_json',
    quality: 'high',
    moderation: 'low',
    user: 'u-1',
    extra_body: { google: { aspect_ratio: '1:1' } },
  });
  t.match(await decode(body.data[0]), { width: 1024, height: 1024 });
});

void t.test('front-door validation: 400 INVALID_ARGUMENT naming the field', async (t) => {
  const cases: [string, object][] = [
    ['prompt', { model: MODEL }],
    ['prompt', { model: MODEL, prompt: '' }],
    ['prompt', { model: MODEL, prompt: 42 }],
    ['model', { prompt: 'p' }],
    ['model', { prompt: 'p', model: 7 }],
    ['n', { model: MODEL, prompt: 'p', n: 0 }],
    ['n', { model: MODEL, prompt: 'p', n: 11 }],
    ['n', { model: MODEL, prompt: 'p', n: 1.5 }],
    ['size', { model: MODEL, prompt: 'p', size: '1024' }],
    ['size', { model: MODEL, prompt: 'p', size: '0x10' }],
    ['size', { model: MODEL, prompt: 'p', size: '4097x10' }],
    ['size', { model: MODEL, prompt: 'p', size: 1024 }],
    ['output_format', { model: MODEL, prompt: 'p', output_format: 'gif' }],
    ['output_compression', { model: MODEL, prompt: 'p', output_compression: 101 }],
    ['output_compression', { model: MODEL, prompt: 'p', output_compression: '50' }],
    ['background', { model: MODEL, prompt: 'p', background: 'green' }],
    ['background', { model: MODEL, prompt: 'p', background: 'transparent', output_format: 'jpeg' }],
  ];
  for (const [field, body] of cases) {
    const res = await generate(body);
    t.equal(res.status, 400, JSON.stringify(body));
    const error = (await res.json()) as { error: { message: string } };
    t.match(error, { error: { code: 400, status: 'INVALID_ARGUMENT' } });
    t.ok(error.error.message.includes(`'${field}'`), `${error.error.message} names ${field}`);
  }
  const notObject = await generate(['prompt']);
  t.equal(notObject.status, 400, 'a body that is not an object');
});

void t.test('auth: missing or wrong key is 401 UNAUTHENTICATED', async (t) => {
  for (const authorization of ['', 'Bearer wrong', KEY]) {
    const res = await generate({ model: MODEL, prompt: 'p' }, { authorization });
    t.equal(res.status, 401, `authorization: ${JSON.stringify(authorization)}`);
    t.match(await res.json(), { error: { code: 401, status: 'UNAUTHENTICATED' } });
  }
});

void t.test('usage control leaves usage out', async (t) => {
  const byHeader = await images(t, { prompt: 'p', size: '16x16' }, { 'x-sim-usage': '0' });
  t.notOk('usage' in byHeader, 'x-sim-usage: 0');
  t.equal(byHeader.data.length, 1);
  const byDirective = await images(t, { prompt: 'draw #sim usage=0', size: '16x16' });
  t.notOk('usage' in byDirective, '#sim usage=0');
  const explicit = await images(t, { prompt: 'p', size: '16x16' }, { 'x-sim-usage': '1' });
  t.ok(explicit.usage, 'x-sim-usage: 1 keeps it');
});

void t.test('status and latency controls', async (t) => {
  const res = await generate({ model: MODEL, prompt: 'p' }, { 'x-sim-status': '503' });
  t.equal(res.status, 503);
  t.match(await res.json(), errorShape('modelb', 503));
  const fromPrompt = await generate({ model: MODEL, prompt: 'p #sim status=429' });
  t.equal(fromPrompt.status, 429);
  t.equal(fromPrompt.headers.get('retry-after'), '1');
  t.match(await fromPrompt.json(), { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  const started = Date.now();
  await images(t, { prompt: 'p #sim latency_ms=120', size: '8x8' });
  t.ok(Date.now() - started >= 110, `waited ${Date.now() - started}ms`);
});

void t.test('the request log records the request', async (t) => {
  const res = await generate(
    { model: MODEL, prompt: 'logged', size: '8x8' },
    { 'x-request-id': 'img-log-1' },
  );
  await res.arrayBuffer();
  t.equal(res.status, 200);
  const entry = sim.log.list('img-log-1')[0];
  t.match(entry, {
    id: res.headers.get('x-request-id'),
    method: 'POST',
    path: PATH,
    body: { model: MODEL, prompt: 'logged', size: '8x8' },
    finished: true,
    aborted: false,
    status: 200,
  });
});

void t.test('chat still works on modelb, and other families have no images route', async (t) => {
  const chat = await fetch(`${sim.url}/modelb/v1beta/openai/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(chat.status, 200);
  await chat.arrayBuffer();
  const elsewhere = await fetch(`${sim.url}/modela/v1beta/openai/images/generations`, {
    method: 'POST',
    headers: { authorization: 'Bearer sim-modela-key' },
    body: JSON.stringify({ model: MODEL, prompt: 'p' }),
  });
  t.equal(elsewhere.status, 404);
  await elsewhere.arrayBuffer();
});
