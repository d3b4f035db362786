/**
 * The image generation request of docs/contract.md#image-generation-request over real HTTP through the whole pipeline, and the
 * `modelb-image` upstream behind it: every field rule, the configured ceiling of `n`, decodable images of
 * the requested size and format, `b64_json` whatever `response_format` says, and one usage record per call.
 */
import sharp from 'sharp';
import t from 'tap';
import { isError } from '../../helpers/errors';
import { startTestGateway, type TestGateway } from '../../helpers/gateway';
import { postJson, type JsonResponse } from '../../helpers/http';
import { newId, upstreamBody, upstreamOf, usageOf } from '../chat-helpers';

const MODEL = 'modelb-3.1-flash-image-preview';

interface ImageResponse {
  created: number;
  data: { b64_json: string }[];
}

function generate(
  gw: TestGateway,
  body: Record<string, unknown>,
  id: string,
  headers = {},
): Promise<JsonResponse> {
  return postJson(`${gw.url}/v1/images/generations`, { model: MODEL, ...body }, gw.key, {
    'x-request-id': id,
    ...headers,
  });
}

/** Format, width and height of each returned image, as a decoder reads them. */
async function decoded(
  res: JsonResponse,
): Promise<{ format?: string; width?: number; height?: number; hasAlpha?: boolean }[]> {
  const { data } = res.body as unknown as ImageResponse;
  return Promise.all(
    data.map(async (item) => {
      const m = await sharp(Buffer.from(item.b64_json, 'base64')).metadata();
      return { format: m.format, width: m.width, height: m.height, hasAlpha: m.hasAlpha };
    }),
  );
}

void t.test('image generation', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.limits = { [MODEL]: { max_images: 4 } };
    (doc.prices as Record<string, unknown>)[MODEL] = {
      per_image: { '1024x1024': { low: 0.011, high: 0.167, '*': 0.042 }, '*': 0.039 },
    };
  });

  await t.test(
    'the default: one png of 1024x1024 in b64_json, metered per image and per token',
    async (t) => {
      const id = newId('image-default');
      const res = await generate(gw, { prompt: 'a lighthouse at dusk' }, id);
      t.equal(res.status, 200);
      const body = res.body as unknown as ImageResponse;
      t.ok(Number.isInteger(body.created));
      t.strictSame(await decoded(res), [{ format: 'png', width: 1024, height: 1024, hasAlpha: false }]);
      const upstream = upstreamOf(gw, id)[0]!;
      t.equal(
        upstream.headers.authorization,
        'Bearer sim-modelb-key',
        "the upstream's credential, not the client's",
      );
      const [record] = await usageOf(gw, id);
      t.match(record, {
        model: MODEL,
        endpoint: 'images',
        upstream: 'modelb-image',
        status: 200,
        images: 1,
        estimated: false,
      });
      t.ok(record!.prompt_tokens > 0 && record!.completion_tokens > 0, 'tokens the upstream reported');
    },
  );

  await t.test('size and format are honoured: real images of each format', async (t) => {
    for (const format of ['png', 'jpeg', 'webp']) {
      const res = await generate(
        gw,
        { prompt: 'a fox', size: '320x200', output_format: format },
        newId(`image-${format}`),
      );
      t.equal(res.status, 200, format);
      t.match(await decoded(res), [{ format, width: 320, height: 200 }]);
    }
  });

  await t.test('n images, each decodable, one usage record counting them', async (t) => {
    const id = newId('image-n');
    const res = await generate(gw, { prompt: 'three cats', n: 3, size: '64x64' }, id);
    t.equal((await decoded(res)).length, 3);
    const records = await usageOf(gw, id);
    t.equal(records.length, 1);
    t.equal(records[0]!.images, 3);
  });

  await t.test('priced by size and quality, both kept on the usage record', async (t) => {
    const id = newId('image-priced');
    const res = await generate(gw, { prompt: 'two owls', n: 2, size: '1024x1024', quality: 'high' }, id);
    t.equal(res.status, 200);
    const [record] = await usageOf(gw, id);
    t.match(record, { images: 2, image_size: '1024x1024', image_quality: 'high', cost_micros: 334_000 });
    const plain = newId('image-plain');
    await generate(gw, { prompt: 'an owl', size: '64x64' }, plain);
    const [other] = await usageOf(gw, plain);
    t.match(
      other,
      { images: 1, image_size: '64x64', cost_micros: 39_000 },
      "a size not listed: the table's *",
    );
    t.notOk('image_quality' in other!, 'a quality not given is left out');
  });

  await t.test('transparent background with png or webp gives an alpha channel', async (t) => {
    for (const output_format of ['png', 'webp']) {
      const res = await generate(
        gw,
        { prompt: 'a logo', size: '64x64', background: 'transparent', output_format },
        newId('alpha'),
      );
      t.match(await decoded(res), [{ hasAlpha: true }], output_format);
    }
  });

  await t.test('response_format is accepted and has no effect: always b64_json', async (t) => {
    const id = newId('image-url');
    const res = await generate(gw, { prompt: 'a map', size: '32x32', response_format: 'url' }, id);
    t.equal(res.status, 200);
    t.ok((res.body as unknown as ImageResponse).data[0]!.b64_json.length > 0);
    t.equal(upstreamBody(gw, id).response_format, 'b64_json', 'the upstream is asked for b64_json');
  });

  await t.test('without upstream token counts, the call is still metered per image', async (t) => {
    const id = newId('image-no-usage');
    const res = await generate(gw, { prompt: 'a boat', n: 2, size: '32x32' }, id, { 'x-sim-usage': '0' });
    t.equal(res.status, 200);
    const [record] = await usageOf(gw, id);
    t.match(record, { images: 2, prompt_tokens: 0, completion_tokens: 0, estimated: false });
  });

  await t.test('each rule → 400 invalid_request naming the field, nothing sent upstream', async (t) => {
    const bad: [Record<string, unknown>, string][] = [
      [{}, 'prompt'],
      [{ prompt: '' }, 'prompt'],
      [{ prompt: 7 }, 'prompt'],
      [{ prompt: 'x', n: 0 }, 'n'],
      [{ prompt: 'x', n: 1.5 }, 'n'],
      [{ prompt: 'x', n: 5 }, 'n'], // over the configured ceiling of 4
      [{ prompt: 'x', size: '1024' }, 'size'],
      [{ prompt: 'x', size: 'axb' }, 'size'],
      [{ prompt: 'x', size: '0x10' }, 'size'],
      [{ prompt: 'x', output_format: 'gif' }, 'output_format'],
      [{ prompt: 'x', output_format: 'jpeg', output_compression: 101 }, 'output_compression'],
      [{ prompt: 'x', output_format: 'jpeg', output_compression: -1 }, 'output_compression'],
      [{ prompt: 'x', output_compression: 50 }, 'output_compression'], // png, the default
      [{ prompt: 'x', output_format: 'png', output_compression: 50 }, 'output_compression'],
      [{ prompt: 'x', background: 'clear' }, 'background'],
      [{ prompt: 'x', background: 'transparent', output_format: 'jpeg' }, 'background'],
      [{ prompt: 'x', moderation: 'high' }, 'moderation'],
      [{ prompt: 'x', quality: 3 }, 'quality'],
      [{ prompt: 'x', user: 42 }, 'user'],
    ];
    for (const [body, field] of bad) {
      const id = newId(`image-bad-${field}`);
      const res = await generate(gw, body, id);
      isError(t, res, 400, 'invalid_request', `'${field}'`);
      t.equal(upstreamOf(gw, id).length, 0, 'nothing upstream');
    }
    const ok = await generate(
      gw,
      {
        prompt: 'x',
        size: '16x16',
        output_format: 'webp',
        output_compression: 40,
        moderation: 'low',
        quality: 'high',
        user: 'u-1',
      },
      newId('image-ok'),
    );
    t.equal(ok.status, 200, 'every optional field at a valid value');
  });

  await t.test('a chat model on the images endpoint → 404 naming where it is served', async (t) => {
    const res = await postJson(
      `${gw.url}/v1/images/generations`,
      { model: 'modelb-3.5-flash', prompt: 'x' },
      gw.key,
    );
    isError(t, res, 404, 'model_not_found', 'modelb-3.5-flash', '/v1/chat/completions');
  });

  await t.test(
    "an upstream refusal passes through with the upstream's status and body, billed nothing",
    async (t) => {
      const id = newId('image-503');
      const res = await generate(gw, { prompt: 'x', size: '16x16' }, id, { 'x-sim-status': '503' });
      t.equal(res.status, 503);
      t.match(res.body, { error: { code: 503, status: 'UNAVAILABLE' } });
      const [record] = await usageOf(gw, id);
      t.match(record, { status: 503, prompt_tokens: 0, completion_tokens: 0 });
      t.equal(record!.images, undefined, 'no images billed');
    },
  );
});
