/**
 * The phases a pipeline stage can use, through a real gateway and the simulator, with stages defined here
 * as any plugin author would write them: a request phase that rewrites the body or answers the request
 * itself, a response phase that sees, changes or refuses a JSON answer, and an events phase that holds
 * stream events back and releases them, or ends the stream with events of its own. Each on the native
 * and the translated paths, for chat completions, messages, responses and embeddings, read by the
 * vendors' own SDKs where a client would use them.
 */
import 'reflect-metadata';
import t from 'tap';
import OpenAI from 'openai';
import type { GatewayContext } from '../../../core/contracts/context';
import type { EventFilter, JsonAnswer, Middleware, Next, StreamControl } from '../../../core/contracts/stage';
import { definePlugin } from '../../../core/plugins/define-plugin';
import { Errors } from '../../../core/base/errors';
import type { SseEvent } from '../../../core/base/sse';
import { startTestGateway, type ConfigDoc } from '../../helpers/gateway';
import { parseSse, postJson, sseJson } from '../../helpers/http';
import { gatewayAnthropic } from '../../helpers/anthropic-client';
import { eventually } from '../../helpers/wait';

/** Masks the word "secret" in a chat request's messages before routing, so the upstream never sees it. */
@definePlugin({ kind: 'middleware', name: 'test-mask' })
class MaskStage implements Middleware {
  async handle(ctx: GatewayContext, next: Next): Promise<void> {
    if (ctx.headers['x-mask'] === undefined) return next();
    const body = await ctx.json();
    const text = JSON.stringify(body.messages ?? body.input);
    const masked = JSON.parse(text.replaceAll('secret', '[masked]')) as unknown;
    ctx.rewrite({ ...body, ...(body.messages ? { messages: masked } : { input: masked }) });
    return next();
  }
}

/** Answers a chat request itself when it carries `x-canned`: a JSON answer, or a stream's events. */
@definePlugin({ kind: 'middleware', name: 'test-canned' })
class CannedStage implements Middleware {
  async handle(ctx: GatewayContext, next: Next): Promise<void> {
    const canned = ctx.headers['x-canned'];
    if (canned === undefined) return next();
    const usage =
      canned === 'billed' ? { promptTokens: 3, completionTokens: 2, estimated: false } : undefined;
    const message = { role: 'assistant', content: 'from the stage' };
    if (!ctx.stream) {
      const json = {
        id: 'canned',
        object: 'chat.completion',
        created: 1,
        model: 'modela-5.5',
        choices: [{ index: 0, message, finish_reason: 'stop' }],
      };
      ctx.answer({ json, headers: { 'x-canned': 'yes' }, ...(usage ? { usage } : {}) });
      return;
    }
    const chunk = (delta: object, finish: string | null) => ({
      data: JSON.stringify({
        id: 'canned',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'modela-5.5',
        choices: [{ index: 0, delta, finish_reason: finish }],
      }),
    });
    ctx.answer({
      events: [
        chunk({ role: 'assistant', content: 'from ' }, null),
        chunk({ content: 'the stage' }, null),
        chunk({}, 'stop'),
        { data: '[DONE]' },
      ],
    });
  }
}

/** What the response phase saw, by request id. */
const seenAnswers = new Map<string, { status: number; endpoint: string; keys: string[] }>();

/** Marks every JSON answer it sees; refuses one when asked (`x-refuse`). */
@definePlugin({ kind: 'middleware', name: 'test-inspect' })
class InspectStage implements Middleware {
  response(ctx: GatewayContext, answer: JsonAnswer): void {
    const body = answer.json();
    seenAnswers.set(ctx.requestId, {
      status: answer.status,
      endpoint: ctx.endpoint.id,
      keys: Object.keys(body ?? {}),
    });
    if (ctx.headers['x-refuse'] !== undefined)
      return answer.refuse(Errors.invalidRequest('the answer was refused by a stage'));
    if (body && answer.status < 300) answer.replace({ ...body, inspected: true });
    answer.headers['x-inspected'] = 'yes';
  }
}

/** Holds every event of a stream back and releases them all at its end (`x-hold`); ends one early (`x-stop`). */
@definePlugin({ kind: 'middleware', name: 'test-hold' })
class HoldStage implements Middleware {
  events(ctx: GatewayContext, stream: StreamControl): EventFilter | undefined {
    if (ctx.headers['x-hold'] !== undefined) return holdAll();
    if (ctx.headers['x-stop'] !== undefined) return stopAfter(2, stream);
    return undefined;
  }
}

const holdAll = (): EventFilter => {
  const held: SseEvent[] = [];
  return {
    event: (ev) => {
      held.push(ev);
      return null;
    },
    flush: () => held.splice(0),
  };
};

/** Lets `count` events through, then ends the stream with a content-filter finish and `[DONE]`. */
const stopAfter = (count: number, stream: StreamControl): EventFilter => {
  let passed = 0;
  return {
    event: (ev) => {
      if (++passed <= count) return ev;
      const finish = {
        id: 'stopped',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'modela-5.5',
        choices: [{ index: 0, delta: {}, finish_reason: 'content_filter' }],
      };
      stream.end([{ data: JSON.stringify(finish) }, { data: '[DONE]' }]);
      return null;
    },
  };
};

/** The shipped pipeline with the test stages: the answering stage after usage-metering, so its answers are metered. */
function withStages(doc: ConfigDoc): void {
  const pipeline = doc.pipeline as unknown[];
  const metering = pipeline.indexOf('usage-metering');
  pipeline.splice(metering + 1, 0, 'test-inspect', 'test-hold', 'test-canned');
  pipeline.splice(1, 0, 'test-mask');
}

t.ok(MaskStage && CannedStage && InspectStage && HoldStage, 'the stages are registered by their manifests');

t.test('stage phases', async (t) => {
  const gw = await startTestGateway(t, withStages);
  const records = async (id: string) => {
    await eventually(async () => (await gw.gateway.usage.list({ id })).length > 0);
    return gw.gateway.usage.list({ id });
  };
  const chat = (id: string, body: object, headers: Record<string, string> = {}) =>
    postJson<Record<string, unknown>>(
      `${gw.url}/v1/chat/completions`,
      { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi #sim tokens=4' }], ...body },
      gw.key,
      { 'x-request-id': id, ...headers },
    );

  t.test('request phase: a rewritten body is what routing and the upstream get', async (t) => {
    const res = await chat(
      'mask-1',
      { messages: [{ role: 'user', content: 'my secret is 42 #sim tokens=3' }] },
      { 'x-mask': '1' },
    );
    t.equal(res.status, 200);
    const upstream = gw.sim.log.list().find((r) => r.request_id === 'mask-1');
    t.match(JSON.stringify(upstream?.body), /my \[masked\] is 42/, 'the upstream got the masked text');
    t.notMatch(JSON.stringify(upstream?.body), /secret/);
  });

  t.test('request phase: a stage answers JSON itself; the stages before it see the answer', async (t) => {
    const before = gw.sim.log.list().length;
    const res = await chat('canned-1', {}, { 'x-canned': 'free' });
    t.equal(res.status, 200);
    t.match(res.body, {
      id: 'canned',
      choices: [{ message: { content: 'from the stage' } }],
      inspected: true,
    });
    t.equal(res.headers.get('x-canned'), 'yes');
    t.equal(res.headers.get('x-inspected'), 'yes', "an earlier stage's response phase ran on it");
    t.equal(res.headers.get('x-request-id'), 'canned-1');
    t.equal(gw.sim.log.list().length, before, 'the upstream was not called');
    const billed = await chat('canned-2', {}, { 'x-canned': 'billed' });
    t.equal(billed.status, 200);
    const [record] = await records('canned-2');
    t.match(
      record,
      { prompt_tokens: 3, completion_tokens: 2, status: 200, outcome: 'ok', model: 'modela-5.5' },
      'metered as the stage said',
    );
    t.strictSame(
      await gw.gateway.usage.list({ id: 'canned-1' }),
      [],
      'an answer with no usage leaves no record',
    );
  });

  t.test('request phase: a stage answers a stream, read by the openai SDK', async (t) => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    const stream = await client.chat.completions.create(
      { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { headers: { 'x-canned': 'free' } },
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    t.equal(text, 'from the stage');
  });

  t.test(
    'response phase: native chat, translated responses and embeddings are seen in the client API',
    async (t) => {
      const native = await chat('inspect-chat', {});
      t.equal(native.status, 200);
      t.match(native.body, { object: 'chat.completion', inspected: true });
      t.match(seenAnswers.get('inspect-chat'), {
        status: 200,
        endpoint: 'chat-completions',
        keys: ['id', 'object'],
      });
      const translated = await postJson(
        `${gw.url}/v1/responses`,
        { model: 'modelb-3.5-flash', input: 'hi #sim tokens=3' },
        gw.key,
        { 'x-request-id': 'inspect-responses' },
      );
      t.equal(translated.status, 200);
      t.match(
        translated.body,
        { object: 'response', status: 'completed', inspected: true },
        'the translation, as the client gets it',
      );
      t.match(seenAnswers.get('inspect-responses'), { endpoint: 'responses' });
      const embeddings = await postJson(
        `${gw.url}/v1/embeddings`,
        { model: 'modela-embedding-3-small', input: 'hello' },
        gw.key,
        { 'x-request-id': 'inspect-embeddings' },
      );
      t.equal(embeddings.status, 200);
      t.match(embeddings.body, { object: 'list', inspected: true });
      const messages = await gatewayAnthropic(gw).messages.create(
        {
          model: 'modeld-sonnet-4-6',
          max_tokens: 50,
          messages: [{ role: 'user', content: 'hi #sim tokens=3' }],
        },
        { headers: { 'x-request-id': 'inspect-messages' } },
      );
      t.equal(messages.type, 'message');
      t.match(seenAnswers.get('inspect-messages'), { status: 200, endpoint: 'messages' });
    },
  );

  t.test(
    "response phase: a vendor's error is seen too; a refusal still bills what the upstream spent",
    async (t) => {
      const failed = await chat('inspect-error', {
        messages: [{ role: 'user', content: 'hi #sim status=400' }],
      });
      t.equal(failed.status, 400);
      t.match(seenAnswers.get('inspect-error'), { status: 400 });
      const [failedRecord] = await records('inspect-error');
      t.match(failedRecord, { status: 400, outcome: 'vendor_error', prompt_tokens: 0 });
      const refused = await chat('refuse-1', {}, { 'x-refuse': '1' });
      t.equal(refused.status, 400);
      t.match(refused.body, {
        error: { message: 'the answer was refused by a stage', code: 'invalid_request' },
      });
      const [record] = await records('refuse-1');
      t.match(record, { status: 400, outcome: 'refused' });
      t.ok(
        record!.prompt_tokens > 0 && record!.completion_tokens === 4,
        'the upstream answered: its usage is billed',
      );
    },
  );

  t.test(
    'events phase: held back and released at the end, on chat, messages and translated responses',
    async (t) => {
      const held = await chat('hold-chat', { stream: true }, { 'x-hold': '1' });
      const plain = await chat('plain-chat', { stream: true });
      const content = (text: string) =>
        sseJson<{ choices: { delta: { content?: string } }[] }>(text)
          .map((c) => c.choices[0]?.delta.content ?? '')
          .join('');
      t.equal(content(held.text), content(plain.text), 'every event arrived, in order');
      t.equal(parseSse(held.text).at(-1)?.data, '[DONE]');
      t.match(await records('hold-chat'), [{ outcome: 'ok', estimated: false }]);

      const stream = gatewayAnthropic(gw).messages.stream(
        {
          model: 'modeld-sonnet-4-6',
          max_tokens: 50,
          messages: [{ role: 'user', content: 'hi #sim tokens=5' }],
        },
        { headers: { 'x-hold': '1' } },
      );
      const message = await stream.finalMessage();
      t.equal(message.stop_reason, 'end_turn', 'the Anthropic SDK read the whole released stream');

      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      const responses = await client.responses.create(
        { model: 'modelb-3.5-flash', input: 'hi #sim tokens=5', stream: true },
        { headers: { 'x-hold': '1' } },
      );
      let completed = false;
      for await (const ev of responses) if (ev.type === 'response.completed') completed = true;
      t.ok(completed, 'the translated stream, held and released, ends completed');
    },
  );

  t.test('events phase: a stage ends the stream with events of its own', async (t) => {
    const res = await chat(
      'stop-1',
      { stream: true, messages: [{ role: 'user', content: 'hi #sim tokens=20' }] },
      { 'x-stop': '1' },
    );
    const events = parseSse(res.text);
    t.equal(events.at(-1)?.data, '[DONE]');
    t.match(JSON.parse(events.at(-2)!.data), {
      id: 'stopped',
      choices: [{ finish_reason: 'content_filter' }],
    });
    t.equal(events.length, 4, 'two events passed, then the stage’s two');
    const [record] = await records('stop-1');
    t.match(record, { outcome: 'refused', status: 200 });
  });
});
