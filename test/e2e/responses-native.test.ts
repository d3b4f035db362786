/**
 * The Responses API where the vendor serves it itself (modela), through the `openai` package: the
 * client's bytes reach the vendor's `/v1/responses` as sent (a coding agent's stateless request with
 * encrypted reasoning included), a custom tool is taken, and what the gateway cannot stand behind is the
 * contract's 400 naming the field: a tool the vendor runs and bills per call, a background response,
 * state the vendor keeps for the whole account. A stream cut mid-answer raises in the SDK and is metered
 * as an estimate of what was delivered.
 */
import 'reflect-metadata';
import t from 'tap';
import OpenAI from 'openai';
import { startTestGateway } from '../helpers/gateway';
import { eventually } from '../helpers/wait';

const MODEL = 'modela-5.5';

t.test('native Responses on modela', async (t) => {
  const gw = await startTestGateway(t);
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const recordOf = async (id: string) => {
    await eventually(async () => (await gw.gateway.usage.list({ id })).length === 1);
    return (await gw.gateway.usage.list({ id }))[0]!;
  };
  const refusal = (body: Record<string, unknown>) =>
    client.responses.create({ model: MODEL, input: 'hi', ...body } as never).catch((e: unknown) => e);

  t.test("a coding agent's stateless request reaches the vendor as it was sent", async (t) => {
    const id = 'native-codex';
    const body = {
      model: MODEL,
      instructions: 'You are a coding agent.',
      input: [
        {
          type: 'message' as const,
          role: 'user' as const,
          content: [{ type: 'input_text' as const, text: 'Fix the bug #sim tokens=6' }],
        },
      ],
      store: false,
      include: ['reasoning.encrypted_content' as const],
      reasoning: { effort: 'medium' as const, summary: 'auto' as const },
      tools: [{ type: 'custom' as const, name: 'apply_patch', description: 'Applies a patch' }],
      parallel_tool_calls: false,
      prompt_cache_key: 'session-1',
    };
    const response = await client.responses.create(body, { headers: { 'x-request-id': id } });
    t.equal(response.status, 'completed');
    t.equal(response.output_text.split(' ').length, 6);
    const upstream = gw.sim.log.list().find((r) => r.request_id === id);
    t.equal(upstream?.path, '/modela/v1/responses');
    t.same(upstream?.body, body, 'the body the client sent, every member kept');
    const record = await recordOf(id);
    t.match(record, { endpoint: 'responses', model: MODEL, estimated: false });
    t.equal(record.prompt_tokens, response.usage?.input_tokens, "the vendor's usage, metered");
    t.equal(record.completion_tokens, response.usage?.output_tokens);
  });

  const refused: readonly [string, Record<string, unknown>, RegExp][] = [
    [
      'a tool the vendor runs and bills per call',
      { tools: [{ type: 'web_search' }] },
      /field 'tools\[0\]' of type 'web_search'/,
    ],
    ['a background response', { background: true }, /field 'background' as true/],
    [
      'a response the vendor stored for the account',
      { previous_response_id: 'resp_1' },
      /field 'previous_response_id'/,
    ],
    ['a conversation the vendor keeps', { conversation: 'conv_1' }, /field 'conversation'/],
  ];
  for (const [what, body, message] of refused) {
    t.test(`${what}: the contract's 400 naming it`, async (t) => {
      const error = await refusal(body);
      t.type(error, OpenAI.BadRequestError);
      t.match(error, { status: 400, error: { code: 'unsupported_field', message, type: 'error' } });
    });
  }

  t.test('a stream cut by the vendor: the SDK raises, the delivered words are metered', async (t) => {
    const id = 'native-cut';
    const stream = await client.responses.create(
      { model: MODEL, input: 'Talk #sim tokens=20 cut_after=5', stream: true },
      { headers: { 'x-request-id': id } },
    );
    let deltas = 0;
    const error = await (async () => {
      for await (const event of stream) if (event.type === 'response.output_text.delta') deltas++;
    })().catch((e: unknown) => e);
    t.ok(error instanceof Error, 'the SDK raises');
    t.equal(deltas, 5, 'after the words that came');
    const record = await recordOf(id);
    t.match(record, { endpoint: 'responses', stream: true, estimated: true, outcome: 'upstream_cut' });
    t.ok(record.completion_tokens > 0, 'an estimate of what was delivered');
  });
});
