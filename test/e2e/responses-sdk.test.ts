/**
 * OpenAI's Responses API through the official `openai` package, on every chat-completions model and
 * every messages model: natively where the vendor serves it (modela: the simulator's own
 * `/v1/responses`), elsewhere by translation through each family (the simulator speaking each vendor's
 * chat dialect, and the messages API). Plain, streamed, and a function tool round
 * trip; each call metered under `responses` with the usage the vendor reported, which the Response shows
 * too. On messages, a thinking model's reasoning goes back sealed, as Codex sends it (`store: false`,
 * `include: ['reasoning.encrypted_content']`). Refusals are the contract's 400.
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import t from 'tap';
import OpenAI from 'openai';
import { testCatalogue } from '../helpers/catalogue';
import { startTestGateway } from '../helpers/gateway';
import { eventually } from '../helpers/wait';

const CHAT_MODELS = ['modela', 'modelb', 'modelc'].flatMap((plugin) =>
  testCatalogue().of(plugin, 'chat-completions'),
);
const MESSAGES_MODELS = testCatalogue().of('modeld', 'messages');

/** The vendor endpoint each family's Responses calls reach: its own, its chat completions, or messages. */
const UPSTREAM_PATHS: Readonly<Record<string, string>> = {
  modela: '/modela/v1/responses',
  modelb: '/modelb/v1beta/openai/chat/completions',
  modelc: '/modelc/compatible-mode/v1/chat/completions',
  modeld: '/modeld/v1/messages',
};

/** The messages model that takes a thinking budget (`reasoning.effort`), deprecated but served. */
const THINKING_MODEL = 'modeld-sonnet-4-6';

const tools: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: true,
  },
];

t.test('responses.create on every chat and messages model', async (t) => {
  const gw = await startTestGateway(t);
  /**
   * The usage the messages simulator reports for the body it received for `requestId`, asked again
   * (its answers are deterministic), in the record's words: the prompt is the uncached input and the
   * cache reads (docs/upstreams.md#modeld).
   */
  const upstreamReported = async (requestId: string) => {
    const received = gw.sim.log.list(requestId)[0]?.body;
    const res = await fetch(`${gw.sim.url}/modeld/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sim-modeld-key', 'modeld-version': '2023-06-01' },
      body: JSON.stringify(received),
    });
    const { usage } = (await res.json()) as { usage: Record<string, number> };
    return {
      prompt_tokens: usage.input_tokens! + (usage.cache_read_input_tokens ?? 0),
      completion_tokens: usage.output_tokens,
    };
  };
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const recordOf = async (id: string) => {
    await eventually(async () => (await gw.gateway.usage.list({ id })).length === 1);
    return (await gw.gateway.usage.list({ id }))[0]!;
  };

  t.ok(MESSAGES_MODELS.length > 0, 'messages models are served');
  for (const model of [...CHAT_MODELS, ...MESSAGES_MODELS]) {
    // The messages simulator reports one output token per word and no hidden reasoning.
    const exact = MESSAGES_MODELS.includes(model);
    t.test(model, async (t) => {
      const plainId = `resp-plain-${model}`;
      const response = await client.responses.create(
        { model, input: 'Say hello #sim tokens=5', instructions: 'Be brief.' },
        { headers: { 'x-request-id': plainId } },
      );
      t.equal(response.object, 'response');
      t.equal(response.status, 'completed');
      t.equal(response.model, model);
      t.equal(response.output_text.split(' ').length, 5, 'the five words the vendor said');
      const record = await recordOf(plainId);
      t.match(record, { endpoint: 'responses', model, estimated: false }, 'metered under responses');
      const upstream = gw.sim.log.list().find((r) => r.request_id === plainId);
      t.equal(upstream?.path, UPSTREAM_PATHS[model.split('-')[0]!], 'the vendor endpoint it was served on');
      t.equal(
        response.usage?.output_tokens,
        record.completion_tokens,
        'the Response shows the metered usage',
      );
      t.equal(response.usage?.input_tokens, record.prompt_tokens);
      if (exact) t.match(record, await upstreamReported(plainId), 'the usage the vendor reported');

      const streamId = `resp-stream-${model}`;
      const stream = await client.responses.create(
        { model, input: 'Count #sim tokens=7', stream: true },
        { headers: { 'x-request-id': streamId } },
      );
      const types: string[] = [];
      let text = '';
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      t.same(types.slice(0, 2), ['response.created', 'response.in_progress']);
      t.equal(types.at(-1), 'response.completed');
      t.equal(text.split(' ').length, 7);
      const streamed = await recordOf(streamId);
      t.match(streamed, { endpoint: 'responses', stream: true, estimated: false });
      // Thinking models count their reasoning among the output tokens, as the vendors bill it.
      t.equal(
        completed?.usage?.output_tokens,
        streamed.completion_tokens,
        'the metered usage, in the Response',
      );
      t.equal(completed?.usage?.input_tokens, streamed.prompt_tokens);
      if (exact) t.equal(streamed.completion_tokens, 7, 'the output tokens the vendor reported');

      const asked = await client.responses.create({
        model,
        input: 'Weather in Paris?',
        tools,
        tool_choice: { type: 'function', name: 'get_weather' },
      });
      const call = asked.output.find((item) => item.type === 'function_call');
      t.match(
        call,
        { type: 'function_call', name: 'get_weather', call_id: String },
        'the model calls the tool',
      );
      if (!call || call.type !== 'function_call') return;
      // As Codex sends a turn: the whole output back (a thinking model's reasoning too), nothing stored.
      const answered = await client.responses.create({
        model,
        tools,
        store: false,
        include: ['reasoning.encrypted_content'],
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          ...asked.output.map((item) => item as OpenAI.Responses.ResponseInputItem),
          { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c":18}' },
        ],
      });
      t.equal(answered.status, 'completed', 'and answers once it has the result');
      t.ok(answered.output_text.length > 0);
    });
  }

  t.test('thinking and a function call, the reasoning sent back sealed (store: false)', async (t) => {
    const settings = {
      model: THINKING_MODEL,
      tools,
      reasoning: { effort: 'low' as const },
      include: ['reasoning.encrypted_content' as const],
      store: false,
    };
    const question: OpenAI.Responses.ResponseInputItem = {
      role: 'user',
      content: 'Weather in Paris? #sim tokens=4',
    };
    const first = await client.responses.create(
      { ...settings, input: [question] },
      { headers: { 'x-request-id': 'resp-think-1' } },
    );
    const [reasoning, call] = first.output;
    t.match(reasoning, {
      type: 'reasoning',
      encrypted_content: String,
      content: [{ type: 'reasoning_text' }],
    });
    t.match(call, { type: 'function_call', name: 'get_weather', call_id: String });
    if (reasoning?.type !== 'reasoning' || call?.type !== 'function_call') return;
    const thought = reasoning.content?.map((c) => c.text).join('') ?? '';
    t.ok(thought.length > 0, 'the thinking, as reasoning_text');
    // The simulator signs its thinking with the SHA-256 of its text: the seal is the vendor's signature.
    t.equal(reasoning.encrypted_content, createHash('sha256').update(thought).digest('base64'));
    const record = await recordOf('resp-think-1');
    t.equal(first.usage?.output_tokens, record.completion_tokens, 'thinking counted in the output');
    t.equal(record.completion_tokens, 9, 'four words of thinking and five pieces of arguments');

    const stream = await client.responses.create({
      ...settings,
      stream: true,
      input: [
        question,
        ...first.output.map((item) => item as OpenAI.Responses.ResponseInputItem),
        { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c":18}' },
      ],
    });
    let answered: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') answered = event.response;
    t.equal(answered?.status, 'completed', 'the round trip is answered');
    t.match(answered?.output, [
      { type: 'reasoning', encrypted_content: String },
      { type: 'message', content: [{ type: 'output_text' }] },
    ]);
  });

  t.test('a messages refusal names the Responses field', async (t) => {
    const error = await client.responses
      .create({ model: MESSAGES_MODELS[0]!, input: 'hi', store: true })
      .catch((e: unknown) => e);
    t.type(error, OpenAI.BadRequestError);
    t.match(error, { status: 400, error: { message: /'store'/, type: 'error' } });
  });

  t.test('a field no chat model can honour is the contract’s 400, naming it', async (t) => {
    const error = await client.responses
      .create({ model: CHAT_MODELS[0]!, input: 'hi', previous_response_id: 'resp_1' })
      .catch((e: unknown) => e);
    t.type(error, OpenAI.BadRequestError);
    t.match(error, { status: 400, error: { message: /previous_response_id/, type: 'error' } });
  });
});
