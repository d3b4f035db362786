/**
 * The official `openai` npm package pointed at the gateway's /v1, as users run it: a completion, a stream
 * read to its end with usage, images, and gateway and upstream errors surfacing as the SDK's error classes.
 */
import t from 'tap';
import OpenAI from 'openai';
import sharp from 'sharp';
import { startTestGateway } from '../helpers/gateway';

t.test('openai SDK against the gateway', async (t) => {
  const gw = await startTestGateway(t);
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });

  t.test('chat.completions.create returns a completion with usage', async (t) => {
    const completion = await client.chat.completions.create({
      model: 'modela-5.5',
      messages: [{ role: 'user', content: 'Say hello #sim tokens=5' }],
      max_tokens: 50,
    });
    t.equal(completion.object, 'chat.completion');
    t.equal(completion.model, 'modela-5.5');
    t.equal(completion.choices[0]?.finish_reason, 'stop');
    t.equal(completion.choices[0]?.message.content?.split(' ').length, 5);
    t.equal(completion.usage?.completion_tokens, 5);
    t.equal(completion.usage?.total_tokens, (completion.usage?.prompt_tokens ?? 0) + 5);
  });

  t.test('a stream read to the end, with its usage chunk (modelc, include_usage)', async (t) => {
    const stream = await client.chat.completions.create({
      model: 'modelc-3.6-plus',
      messages: [{ role: 'user', content: 'Count #sim tokens=7' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    t.equal(text.trim().split(' ').length, 7);
    t.equal(finish, 'stop');
    t.equal(usage?.completion_tokens, 7);
    const [record] = await gw.gateway.usage.list({ key_id: gw.key.slice(0, 11), limit: 1 });
    t.equal(record?.completion_tokens, 7, 'the gateway metered the same figures');
  });

  t.test('a stream on a family that reports no usage to the client still completes', async (t) => {
    const stream = await client.chat.completions.create({
      model: 'modelb-3.5-flash',
      messages: [{ role: 'user', content: 'hi #sim tokens=3' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    t.ok(chunks.length >= 3);
    t.ok(
      chunks.every((c) => c.usage === undefined),
      'usage the client did not ask for is stripped',
    );
  });

  t.test('tool calls stream as deltas the SDK can assemble', async (t) => {
    const runner = client.chat.completions.stream({
      model: 'modela-5.6-luna',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    t.equal(call?.type === 'function' ? call.function.name : undefined, 'get_weather');
    t.equal(final.choices[0]?.finish_reason, 'tool_calls');
  });

  t.test('errors surface as the SDK error classes', async (t) => {
    const bad = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-wrong', maxRetries: 0 });
    const unauthorized = await bad.models.list().catch((e: unknown) => e);
    t.ok(unauthorized instanceof OpenAI.AuthenticationError);
    t.equal((unauthorized as InstanceType<typeof OpenAI.APIError>).status, 401);

    const notFound = await client.chat.completions
      .create({ model: 'modeld-opus-4-8', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    t.ok(notFound instanceof OpenAI.NotFoundError);
    t.equal((notFound as InstanceType<typeof OpenAI.APIError>).code, 'model_not_found');

    const badRequest = await client.chat.completions
      .create({ model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }], top_p: 3 })
      .catch((e: unknown) => e);
    t.ok(badRequest instanceof OpenAI.BadRequestError);
    t.match((badRequest as Error).message, /top_p/);

    const upstream = await client.chat.completions
      .create(
        { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-sim-status': '429' } },
      )
      .catch((e: unknown) => e);
    t.ok(upstream instanceof OpenAI.RateLimitError, "the upstream's 429 keeps its status and body");
  });

  t.test('a stream cut mid-way raises in the SDK instead of ending quietly', async (t) => {
    const stream = await client.chat.completions.create(
      { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi #sim tokens=20' }], stream: true },
      { headers: { 'x-sim-cut-after': '3' } },
    );
    const consume = async () => {
      for await (const chunk of stream) void chunk;
    };
    await t.rejects(consume(), /ended the stream before it was complete/);
  });

  t.test('images.generate returns decodable images of the requested size and format', async (t) => {
    const result = await client.images.generate({
      model: 'modelb-3.1-flash-image-preview',
      prompt: 'a red kite over the sea',
      n: 2,
      size: '1536x1024',
      output_format: 'webp',
    });
    t.equal(result.data?.length, 2);
    for (const image of result.data ?? []) {
      const meta = await sharp(Buffer.from(image.b64_json ?? '', 'base64')).metadata();
      t.match(meta, { format: 'webp', width: 1536, height: 1024 });
    }
    const refused = await client.images
      .generate({ model: 'modelb-3.1-flash-image-preview', prompt: '' })
      .catch((e: unknown) => e);
    t.ok(refused instanceof OpenAI.BadRequestError);
    t.match((refused as Error).message, /prompt/);
  });

  t.test('models.list shows the models of this key', async (t) => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    t.ok(models.includes('modela-5.5') && models.includes('modelc-3.7-max'));
    t.equal(models.length, 24);
  });
});
