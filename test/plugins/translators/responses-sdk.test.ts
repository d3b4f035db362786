/**
 * The translated answers read by OpenAI's own SDK (`openai`), as a Responses client would: a tiny local
 * server answers `POST /v1/responses` with what the translation wrote for recorded chat answers, and the
 * SDK's `responses.create` (JSON and stream) and `responses.stream` (its accumulating helper, whose
 * `finalResponse()` rebuilds the Response from the events alone) read them. Failures must reach the
 * SDK's user as the errors it raises.
 */
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import OpenAI, { APIError } from 'openai';
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import { ChatResponseReader } from '../../../plugins/upstreams/openai-compatible/chat-reader';
import { responsesFromChat } from '../../../plugins/translators/responses-chat';
import { chatEvents, fixtureJson, MODEL, translateStream, wire } from './responses-helpers';

/** A scenario's answers: the stream's bytes and the JSON body. */
interface Scenario {
  readonly sse: string;
  readonly json?: JsonObject;
}

const body = (input: string, stream: boolean): JsonObject => ({ model: MODEL.id, input, stream });

const streamOf = (file: string, input: string): string =>
  wire(translateStream(chatEvents(file), body(input, true)).events);

function jsonOf(file: string, input: string): JsonObject {
  const reader = responsesFromChat(new ChatResponseReader(false, false, () => 1), body(input, false), MODEL);
  return reader.json(fixtureJson(file)).replace;
}

/** A cut stream as the client gets it: what was relayed, then the reader's own closing frames. */
function cutStream(input: string): string {
  const { reader, events } = translateStream(
    chatEvents('kit/fixtures/modela/stream-cut.sse'),
    body(input, true),
  );
  return wire(events) + reader.errorFrame(Errors.streamCut('modela-main'));
}

const SCENARIOS: Readonly<Record<string, Scenario>> = {
  text: {
    sse: streamOf('fixtures/modela/stream-include-usage.sse', 'text'),
    json: jsonOf('fixtures/modela/json.json', 'text'),
  },
  reasoning: {
    sse: streamOf('fixtures/modelc/stream-reasoning.sse', 'reasoning'),
    json: jsonOf('fixtures/modelc/json-reasoning.json', 'reasoning'),
  },
  tools: { sse: streamOf('fixtures/modela/stream-parallel-tools.sse', 'tools') },
  error: { sse: streamOf('kit/fixtures/modela/stream-error.sse', 'error') },
  cut: { sse: cutStream('cut') },
};

/** Answers the SDK's request with the scenario its `input` names. */
function startServer(): Promise<Server> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const request = JSON.parse(raw) as { input: string; stream?: boolean };
      const scenario = SCENARIOS[request.input]!;
      if (request.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(scenario.sse);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(scenario.json));
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

t.test("OpenAI's SDK reads the translated answers", async (t) => {
  const server = await startServer();
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const client = new OpenAI({
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey: 'k',
    maxRetries: 0,
    timeout: 5_000,
  });
  const chatText = (file: string): string =>
    chatEvents(file)
      .filter((ev) => ev.data.startsWith('{'))
      .map((ev) => {
        const chunk = JSON.parse(ev.data) as { choices: { delta?: { content?: string | null } }[] };
        return chunk.choices[0]?.delta?.content ?? '';
      })
      .join('');
  const TEXT = chatText('fixtures/modela/stream-include-usage.sse');

  t.test('responses.create, streamed: typed events to response.completed', async (t) => {
    const stream = await client.responses.create({ model: MODEL.id, input: 'text', stream: true });
    const types: string[] = [];
    let text = '';
    let last: OpenAI.Responses.ResponseStreamEvent | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      last = event;
    }
    t.equal(types[0], 'response.created');
    t.equal(text, TEXT);
    t.equal(last?.type, 'response.completed');
    if (last?.type === 'response.completed')
      t.match(last.response.usage, { input_tokens: 14, output_tokens: 47 });
  });

  t.test('responses.stream rebuilds the Response from the events: text and output_text', async (t) => {
    const deltas: string[] = [];
    const stream = client.responses.stream({ model: MODEL.id, input: 'text' });
    stream.on('response.output_text.delta', (e) => deltas.push(e.snapshot));
    const response = await stream.finalResponse();
    t.equal(response.output_text, TEXT);
    t.equal(response.status, 'completed');
    t.equal(deltas.at(-1), TEXT, "the SDK's running snapshot");
  });

  t.test('responses.stream: reasoning_text on the reasoning item, the answer in output_text', async (t) => {
    const response = await client.responses.stream({ model: MODEL.id, input: 'reasoning' }).finalResponse();
    const [reasoning, message] = response.output;
    t.equal(reasoning?.type, 'reasoning');
    if (reasoning?.type === 'reasoning')
      t.match(reasoning.content?.[0], { type: 'reasoning_text', text: /^We are asked/ });
    t.equal(message?.type, 'message');
    t.match(response.output_text, /Answer: 3/);
    t.match(response.usage, { output_tokens_details: { reasoning_tokens: 1084 } });
  });

  t.test('responses.stream: parallel function calls with their arguments', async (t) => {
    const response = await client.responses.stream({ model: MODEL.id, input: 'tools' }).finalResponse();
    const calls = response.output.filter((item) => item.type === 'function_call');
    t.strictSame(
      calls.map((c) => [c.name, c.call_id, JSON.parse(c.arguments) as unknown]),
      [
        ['GetWeatherArgs', 'call_lQnnsesjFMWMQ5IeWPHzR4th', { city: 'Edinburgh', country: 'UK', units: 'c' }],
        ['get_stock_price', 'call_2xjOUgaCdiwAcl9ZBL9LyMUU', { ticker: 'AAPL', exchange: 'NASDAQ' }],
      ],
    );
    t.equal(response.output_text, '');
  });

  t.test('responses.create, JSON: the Response with output_text', async (t) => {
    const response = await client.responses.create({ model: MODEL.id, input: 'text' });
    t.equal(response.object, 'response');
    t.equal(response.status, 'completed');
    t.equal(response.output_text.length > 0, true);
    t.match(response.usage, { input_tokens: 16, output_tokens: 363, total_tokens: 379 });
    const reasoning = await client.responses.create({ model: MODEL.id, input: 'reasoning' });
    t.equal(reasoning.output[0]?.type, 'reasoning');
    t.ok(reasoning.output_text.length > 0);
  });

  t.test("an upstream's in-stream error is raised as the SDK's APIError", async (t) => {
    const iterate = async () => {
      for await (const event of await client.responses.create({
        model: MODEL.id,
        input: 'error',
        stream: true,
      })) {
        void event;
      }
    };
    const raised = await iterate().then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(raised instanceof APIError, "the SDK's APIError");
    await t.rejects(iterate(), { message: /The server had an error while processing your request/ });
    await t.rejects(client.responses.stream({ model: MODEL.id, input: 'error' }).finalResponse());
  });

  t.test("the gateway's cut is raised too, with its code", async (t) => {
    const iterate = async () => {
      for await (const event of await client.responses.create({
        model: MODEL.id,
        input: 'cut',
        stream: true,
      })) {
        void event;
      }
    };
    await t.rejects(iterate(), { code: 'upstream_stream_cut', message: /ended the stream/ });
  });
});
