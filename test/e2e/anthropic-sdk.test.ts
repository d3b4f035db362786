/**
 * The official `@anthropic-ai/sdk` package pointed at the gateway, as users run it: the gateway key as its
 * Bearer auth token, `modeld-version` in its default headers. A message, a stream read to its final
 * message, thinking, tool use, and errors surfacing as the SDK's error classes.
 */
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { gatewayAnthropic } from '../helpers/anthropic-client';
import { startTestGateway } from '../helpers/gateway';

t.test('@anthropic-ai/sdk against the gateway', async (t) => {
  const gw = await startTestGateway(t);
  const client = gatewayAnthropic(gw);

  t.test('messages.create returns a message with usage', async (t) => {
    const message = await client.messages.create({
      model: 'modeld-sonnet-4-5-20250929',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hello #sim tokens=5' }],
    });
    t.equal(message.type, 'message');
    t.equal(message.role, 'assistant');
    t.equal(message.stop_reason, 'end_turn');
    const block = message.content[0];
    t.equal(block?.type, 'text');
    t.equal(block?.type === 'text' ? block.text.split(' ').length : 0, 5);
    t.equal(message.usage.output_tokens, 5);
    t.ok(message.usage.input_tokens > 0);
  });

  t.test('messages.stream read to its final message', async (t) => {
    const stream = client.messages.stream({
      model: 'modeld-opus-4-6',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Count #sim tokens=7' }],
    });
    let streamed = '';
    stream.on('text', (text) => (streamed += text));
    const message = await stream.finalMessage();
    const block = message.content[0];
    t.equal(
      block?.type === 'text' ? block.text : undefined,
      streamed,
      'the final message holds the streamed text',
    );
    t.equal(message.usage.output_tokens, 7, 'output tokens from the last message_delta');
    t.equal(message.stop_reason, 'end_turn');
  });

  t.test('a thinking request streams a thinking block before the answer', async (t) => {
    const message = await client.messages
      .stream({
        model: 'modeld-opus-4-8',
        max_tokens: 2000,
        thinking: { type: 'adaptive' },
        messages: [{ role: 'user', content: 'Think, then answer #sim tokens=4' }],
      })
      .finalMessage();
    t.strictSame(
      message.content.map((b) => b.type),
      ['thinking', 'text'],
    );
    const thinking = message.content[0];
    t.ok(thinking?.type === 'thinking' && thinking.thinking.length > 0 && thinking.signature.length > 0);
  });

  t.test('a tool-use request returns a tool_use block with parsed input', async (t) => {
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Weather by city',
        input_schema: { type: 'object', properties: {} },
      },
    ];
    for (const stream of [false, true]) {
      const params = {
        model: 'modeld-sonnet-4-6',
        max_tokens: 200,
        tools,
        tool_choice: { type: 'tool' as const, name: 'get_weather' },
        messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
      };
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      t.equal(message.stop_reason, 'tool_use', `stream: ${stream}`);
      const block = message.content.find((b) => b.type === 'tool_use');
      t.equal(block?.type === 'tool_use' ? block.name : undefined, 'get_weather');
      t.type(block?.type === 'tool_use' ? block.input : undefined, 'object');
    }
  });

  t.test('errors surface as the SDK error classes', async (t) => {
    const create = (
      client: Anthropic,
      params: Partial<Anthropic.MessageCreateParamsNonStreaming>,
      headers = {},
    ) =>
      client.messages
        .create(
          { model: 'modeld-opus-4-8', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], ...params },
          { headers },
        )
        .catch((e: unknown) => e);
    const status = (e: unknown) => (e as InstanceType<typeof Anthropic.APIError>).status;

    const badRequest = await create(client, {
      model: 'modeld-sonnet-4-5-20250929',
      metadata: { user_id: 'u-1' },
    });
    t.ok(badRequest instanceof Anthropic.BadRequestError, 'a field the model does not take');
    t.match((badRequest as Error).message, /metadata/);

    const notFound = await create(client, { model: 'modela-5.5' });
    t.ok(notFound instanceof Anthropic.NotFoundError, 'a chat model on /v1/messages');

    const stranger = new Anthropic({ baseURL: gw.url, apiKey: null, authToken: 'sk-nope', maxRetries: 0 });
    const unauthorized = await create(stranger, {});
    t.ok(unauthorized instanceof Anthropic.AuthenticationError, 'an unknown key');
    t.equal(status(unauthorized), 401);

    const overloaded = await create(client, {}, { 'x-sim-status': '529' });
    t.ok(overloaded instanceof Anthropic.InternalServerError, "the upstream's 529 as the SDK's server error");
    t.equal(status(overloaded), 529);
  });

  t.test('a stream cut mid-way raises in the SDK instead of ending quietly', async (t) => {
    const stream = client.messages.stream(
      {
        model: 'modeld-sonnet-4-6',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'x #sim tokens=9' }],
      },
      { headers: { 'x-sim-cut-after': '3' } },
    );
    const error = await stream.finalMessage().catch((e: unknown) => e);
    t.ok(error instanceof Anthropic.APIError, 'the error event raises');
    t.match((error as Error).message, /upstream_stream_cut|stream/);
  });
});
