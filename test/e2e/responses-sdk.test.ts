/**
 * OpenAI's Responses API through the official `openai` package, on every chat-completions model: natively
 * where the vendor serves it (modela: the simulator's own `/v1/responses`), by translation through the
 * chat family elsewhere (the simulator speaking each vendor's chat dialect). Plain, streamed, and a
 * function tool round trip; each call metered under `responses` with the usage the vendor reported,
 * which the Response shows too. Refusals are the contract's 400.
 */
import 'reflect-metadata';
import t from 'tap';
import OpenAI from 'openai';
import { testCatalogue } from '../helpers/catalogue';
import { startTestGateway } from '../helpers/gateway';
import { eventually } from '../helpers/http';

const CHAT_MODELS = ['modela', 'modelb', 'modelc'].flatMap((plugin) =>
  testCatalogue().of(plugin, 'chat-completions'),
);

/** The vendor endpoint each family's Responses calls reach: its own, or its chat completions. */
const UPSTREAM_PATHS: Readonly<Record<string, string>> = {
  modela: '/modela/v1/responses',
  modelb: '/modelb/v1beta/openai/chat/completions',
  modelc: '/modelc/compatible-mode/v1/chat/completions',
};

t.test('responses.create on every chat model', async (t) => {
  const gw = await startTestGateway(t);
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  const recordOf = async (id: string) => {
    await eventually(async () => (await gw.gateway.usage.list({ id })).length === 1);
    return (await gw.gateway.usage.list({ id }))[0]!;
  };

  for (const model of CHAT_MODELS) {
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
      t.equal(
        response.usage?.output_tokens,
        record.completion_tokens,
        'the Response shows the metered usage',
      );
      t.equal(response.usage?.input_tokens, record.prompt_tokens);
      const upstream = gw.sim.log.list().find((r) => r.request_id === plainId);
      t.equal(upstream?.path, UPSTREAM_PATHS[model.split('-')[0]!], 'the vendor endpoint it was served on');

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

      const tools: OpenAI.Responses.Tool[] = [
        {
          type: 'function',
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          strict: true,
        },
      ];
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
      const answered = await client.responses.create({
        model,
        tools,
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          call,
          { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c":18}' },
        ],
      });
      t.equal(answered.status, 'completed', 'and answers once it has the result');
      t.ok(answered.output_text.length > 0);
    });
  }

  t.test('a field no chat model can honour is the contract’s 400, naming it', async (t) => {
    const error = await client.responses
      .create({ model: CHAT_MODELS[0]!, input: 'hi', previous_response_id: 'resp_1' })
      .catch((e: unknown) => e);
    t.type(error, OpenAI.BadRequestError);
    t.match(error, { status: 400, error: { message: /previous_response_id/, type: 'error' } });
  });
});
