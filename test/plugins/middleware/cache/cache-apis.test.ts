/**
 * Every client API the cache serves, JSON and stream, through the SDKs clients use: the second call is a
 * hit with the first call's answer (text, finish, usage), and the upstream is called once. Native and
 * translated paths alike: responses to modela is relayed, responses to modeld translated.
 */
import 'reflect-metadata';
import t, { type Test } from 'tap';
import { startTestGateway } from '../../../helpers/gateway';
import { gatewayAnthropic } from '../../../helpers/anthropic-client';
import { freshPrompt, openaiFor, upstreamCalls, withCache } from './cache-helpers';

t.test('cache, every API', async (t) => {
  const gw = await startTestGateway(t, withCache());
  const openai = openaiFor(gw, gw.key);
  const anthropic = gatewayAnthropic(gw);
  const twice = async <T>(
    t: Test,
    call: (id: string) => Promise<{ value: T; cache: string | null }>,
  ): Promise<[T, T]> => {
    const tag = `${t.name.replace(/\W+/g, '-')}`;
    const first = await call(`${tag}-1`);
    const second = await call(`${tag}-2`);
    t.equal(first.cache, 'miss');
    t.equal(second.cache, 'hit');
    t.equal(upstreamCalls(gw, `${tag}-1`), 1);
    t.equal(upstreamCalls(gw, `${tag}-2`), 0, 'the hit did not reach the upstream');
    t.strictSame(second.value, first.value, 'the same answer');
    return [first.value, second.value];
  };
  const headers = (id: string) => ({ headers: { 'x-request-id': id } });

  t.test('chat JSON', async (t) => {
    const content = freshPrompt();
    await twice(t, async (id) => {
      const { data, response } = await openai.chat.completions
        .create({ model: 'modela-5.5', messages: [{ role: 'user', content }] }, headers(id))
        .withResponse();
      return { value: data, cache: response.headers.get('x-gateway-cache') };
    });
  });

  t.test('chat stream', async (t) => {
    const content = freshPrompt();
    const [value] = await twice(t, async (id) => {
      const { data, response } = await openai.chat.completions
        .create(
          {
            model: 'modelc-3.6-plus',
            messages: [{ role: 'user', content }],
            stream: true,
            stream_options: { include_usage: true },
          },
          headers(id),
        )
        .withResponse();
      const chunks = [];
      for await (const chunk of data) chunks.push(chunk);
      return { value: chunks, cache: response.headers.get('x-gateway-cache') };
    });
    t.ok(value.at(-1)?.usage, 'the usage chunk');
  });

  t.test('messages JSON', async (t) => {
    const content = freshPrompt();
    await twice(t, async (id) => {
      const { data, response } = await anthropic.messages
        .create(
          { model: 'modeld-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content }] },
          headers(id),
        )
        .withResponse();
      return { value: data, cache: response.headers.get('x-gateway-cache') };
    });
  });

  t.test('messages stream', async (t) => {
    const content = freshPrompt();
    const [value] = await twice(t, async (id) => {
      const { data, response } = await anthropic.messages
        .create(
          { model: 'modeld-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content }], stream: true },
          headers(id),
        )
        .withResponse();
      const events = [];
      for await (const ev of data) events.push(ev);
      return { value: events, cache: response.headers.get('x-gateway-cache') };
    });
    t.match(value.at(-1), { type: 'message_stop' });
    t.match(value, [{ type: 'message_start' }], 'the whole stream, usage in its message events');
  });

  for (const [model, path] of [
    ['modela-5.5', 'relayed'],
    ['modeld-sonnet-4-6', 'translated'],
  ] as const) {
    t.test(`responses JSON, ${path}`, async (t) => {
      const input = freshPrompt();
      await twice(t, async (id) => {
        const { data, response } = await openai.responses
          .create({ model, input }, headers(id))
          .withResponse();
        return { value: data, cache: response.headers.get('x-gateway-cache') };
      });
    });

    t.test(`responses stream, ${path}`, async (t) => {
      const input = freshPrompt();
      const [value] = await twice(t, async (id) => {
        const { data, response } = await openai.responses
          .create({ model, input, stream: true }, headers(id))
          .withResponse();
        const events = [];
        for await (const ev of data) events.push(ev);
        return { value: events, cache: response.headers.get('x-gateway-cache') };
      });
      t.match(value.at(-1), { type: 'response.completed', response: { usage: { output_tokens: 5 } } });
    });
  }

  t.test('embeddings', async (t) => {
    const input = freshPrompt();
    await twice(t, async (id) => {
      const { data, response } = await openai.embeddings
        .create({ model: 'modela-embedding-3-small', input }, headers(id))
        .withResponse();
      return { value: data, cache: response.headers.get('x-gateway-cache') };
    });
  });
});
