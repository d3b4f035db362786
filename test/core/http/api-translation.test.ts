/**
 * A client API served on the models of another through a translator plugin, with no edit to core and
 * no change to the families: a `shout` API (`POST /v1/shout`, `{model, text}` → `{shout}`), defined in
 * this file, reaches every chat-completions model through the chat families' own `prepare` and readers.
 * Over real HTTP against the simulator: JSON and streams translated, metered as the family read them
 * under the client's endpoint, refusals naming the field, and models of other APIs not served.
 */
import 'reflect-metadata';
import t from 'tap';
import type { ApiTranslator } from '../../../core/contracts/translator';
import type { ClientEvents, ResponseReader, TranslatingReader } from '../../../core/contracts/reader';
import type { ModelApi, ModelSpec } from '../../../core/contracts/api';
import { Errors } from '../../../core/base/errors';
import { eventsOf } from '../../../core/contracts/client-events';
import { isJsonObject, type JsonObject } from '../../../core/base/json';
import type { SseEvent } from '../../../core/base/sse';
import type { Usage } from '../../../core/contracts/usage';
import { definePlugin } from '../../../core/plugins/define-plugin';
import { ApiServing } from '../../../core/routing/api-serving';
import { ChatCompletionsApi, OpenAiStreamDialect } from '../../../plugins/apis/chat-completions';
import { MessagesApi } from '../../../plugins/apis/messages';
import { startTestGateway } from '../../helpers/gateway';
import { parseSse, postJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';

const ShoutApi: ModelApi = {
  id: 'shout',
  method: 'POST',
  path: '/v1/shout',
  dialect: OpenAiStreamDialect,
  genAi: { operation: 'chat' },
};

const contentOf = (chat: JsonObject): string => {
  const [choice] = Array.isArray(chat.choices) ? (chat.choices as JsonObject[]) : [];
  const part = isJsonObject(choice?.delta)
    ? choice.delta
    : isJsonObject(choice?.message)
      ? choice.message
      : {};
  return typeof part.content === 'string' ? part.content : '';
};

/** The shout answer for what the chat family's reader made of each chat answer. */
class ShoutReader implements TranslatingReader {
  readonly translates = true;
  constructor(private readonly inner: ResponseReader) {}
  get complete(): boolean {
    return this.inner.complete;
  }
  get failed(): boolean {
    return this.inner.failed;
  }
  json(body: JsonObject): { usage: Usage; replace: JsonObject } {
    const read = this.inner.json(body);
    return { usage: read.usage, replace: { shout: contentOf(read.replace ?? body).toUpperCase() } };
  }
  event(ev: SseEvent): ClientEvents {
    return eventsOf(this.inner.event(ev)).map((e) =>
      e.data === '[DONE]'
        ? e
        : { data: JSON.stringify({ shout: contentOf(JSON.parse(e.data) as JsonObject).toUpperCase() }) },
    );
  }
  usage(): Usage {
    return this.inner.usage();
  }
}

@definePlugin({ kind: 'api-translator', name: 'shout-to-chat' })
class ShoutToChat implements ApiTranslator {
  readonly from = ShoutApi;
  readonly to = ChatCompletionsApi;
  request(body: JsonObject, model: ModelSpec): JsonObject {
    if (body.loud !== undefined) throw Errors.unsupportedField('loud', model.id);
    return {
      model: body.model,
      messages: [{ role: 'user', content: body.text }],
      stream: body.stream === true,
    };
  }
  reader(inner: ResponseReader): TranslatingReader {
    return new ShoutReader(inner);
  }
}
void ShoutToChat;

void t.test('a translator serves its API on every model of its target API', async (t) => {
  const gw = await startTestGateway(t);
  const url = `${gw.url}/v1/shout`;

  await t.test('JSON: the family answers, the translator shapes it, the call is metered', async (t) => {
    const chat = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] },
      gw.key,
    );
    const res = await postJson(url, { model: 'modela-5.5', text: 'hi' }, gw.key, {
      'x-request-id': 'shout-json',
    });
    t.equal(res.status, 200);
    t.same(JSON.parse(res.text), { shout: contentOf(JSON.parse(chat.text) as JsonObject).toUpperCase() });
    await eventually(async () => (await gw.gateway.usage.list({ id: 'shout-json' })).length === 1);
    const [record] = await gw.gateway.usage.list({ id: 'shout-json' });
    const usage = (JSON.parse(chat.text) as { usage: { prompt_tokens: number; completion_tokens: number } })
      .usage;
    t.match(
      record,
      {
        endpoint: 'shout',
        model: 'modela-5.5',
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        estimated: false,
      },
      'metered under the client endpoint with the vendor usage',
    );
  });

  await t.test('a stream: each chunk translated, the end kept', async (t) => {
    const res = await postJson(url, { model: 'modelc-3.6-flash', text: 'hi', stream: true }, gw.key);
    t.equal(res.status, 200);
    const events = parseSse(res.text);
    t.equal(events.at(-1)?.data, '[DONE]');
    const text = events
      .slice(0, -1)
      .map((e) => (JSON.parse(e.data) as { shout: string }).shout)
      .join('');
    t.ok(text.length > 0 && text === text.toUpperCase(), 'shouted text');
  });

  await t.test('a field the target cannot honour is refused, naming it', async (t) => {
    const res = await postJson(url, { model: 'modela-5.5', text: 'hi', loud: true }, gw.key);
    t.equal(res.status, 400);
    t.match(JSON.parse(res.text), { error: { code: 'unsupported_field', message: /'loud'/, type: 'error' } });
  });

  await t.test('a model of an API with no translator is not served there', async (t) => {
    const res = await postJson(url, { model: 'modeld-sonnet-4-6', text: 'hi' }, gw.key);
    t.equal(res.status, 404);
    t.match(JSON.parse(res.text), {
      error: { code: 'model_not_found', message: /served on .*\/v1\/messages/ },
    });
  });
});

void t.test('how a model is reached on an API', (t) => {
  const chatModel: ModelSpec = { id: 'c', api: ChatCompletionsApi, created: 0, ownedBy: 't' };
  const messagesModel: ModelSpec = {
    id: 'm',
    api: MessagesApi,
    created: 0,
    ownedBy: 't',
    alsoServes: [ShoutApi],
  };
  const translator = new ShoutToChat();
  const serving = new ApiServing([translator]);
  t.equal(serving.reach(ChatCompletionsApi, chatModel), 'native', 'its own API');
  t.equal(serving.reach(ShoutApi, chatModel), translator, 'through the translator for the pair');
  t.equal(serving.reach(ShoutApi, messagesModel), 'native', 'an API its family also takes wins');
  t.equal(serving.reach(ChatCompletionsApi, messagesModel), undefined, 'no translator: not served');
  t.same(
    serving.apis([messagesModel]).map((a) => a.id),
    ['messages', 'shout'],
    'no target API served: no translated one',
  );
  t.same(
    serving.apis([chatModel]).map((a) => a.id),
    ['chat-completions', 'shout'],
  );
  t.throws(
    () => new ApiServing([translator, new ShoutToChat()]),
    /two API translators from shout to chat-completions/,
  );
  t.end();
});
