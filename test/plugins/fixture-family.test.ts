/**
 * The README's "Add an upstream plugin", step by step: a chat family defined only under test/ (its own
 * folder, `test/fixtures/plugins/acme/`), one upstream entry and one route in the configuration, and it
 * is served through the real pipeline (auth, routing, limits, metering) to the `openai` SDK, with its own
 * field table enforced. Nothing outside its folder and the configuration is edited.
 */
import 'reflect-metadata';
import t from 'tap';
import OpenAI from 'openai';
import '../fixtures/plugins/acme';
import { startTestGateway } from '../helpers/gateway';
import { isError } from '../helpers/errors';
import { chat, hello, newId, upstreamBody, upstreamOf } from './chat-helpers';

t.test('a chat family defined under test/ is served like a built-in', async (t) => {
  // Step 2: an upstream entry naming the plugin, and (since the simulator speaks for modelc) a route
  // that sends the family's model to it under the simulator's model id.
  const gw = await startTestGateway(t, (doc) => {
    (doc.upstreams as Record<string, unknown>)['acme-main'] = {
      plugin: 'acme',
      base_url: `${simulatorUrl(doc)}/modelc/compatible-mode/v1`,
      api_key: 'sim-modelc-key',
    };
    doc.routes = {
      ...(doc.routes as Record<string, unknown> | undefined),
      'acme-1': { targets: [{ upstream: 'acme-main', model: 'modelc-3.6-flash' }] },
    };
  });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });

  const models = await client.models.list();
  const listed = models.data.filter((m) => m.owned_by === 'acme').map((m) => m.id);
  t.strictSame(listed.sort(), ['acme-1', 'acme-2-mini'], 'its models are in the model list');

  const completion = await client.chat.completions.create({
    model: 'acme-1',
    messages: [{ role: 'user', content: 'hi #sim tokens=4' }],
    max_tokens: 20,
  });
  t.equal(completion.choices[0]?.message.content?.split(' ').length, 4);
  t.equal(completion.usage?.completion_tokens, 4);

  const stream = await client.chat.completions.create({
    model: 'acme-1',
    messages: [{ role: 'user', content: 'count #sim tokens=6' }],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  t.equal(text.trim().split(' ').length, 6, 'a stream read to its end');

  const id = newId('acme-fields');
  const res = await chat(gw, { model: 'acme-1', messages: hello, top_k: 7, max_tokens: 9 }, id);
  t.equal(res.status, 200, res.text.slice(0, 200));
  const sent = upstreamBody(gw, id);
  t.equal(sent.top_k, 7, 'its own field arrives upstream');
  t.equal(sent.max_completion_tokens, 9, 'and its rename is applied');
  t.equal(sent.model, 'modelc-3.6-flash', 'under the route model');

  const refusedId = newId('acme-refused');
  const refused = await chat(gw, { model: 'acme-1', messages: hello, logprobs: true }, refusedId);
  isError(t, refused, 400, 'unsupported_field', "'logprobs'", "'acme-1'");
  t.equal(upstreamOf(gw, refusedId).length, 0, 'a contract field it does not take never leaves');
  const invalid = await chat(gw, { model: 'acme-1', messages: hello, top_k: 0 }, newId('acme-invalid'));
  isError(t, invalid, 400, 'invalid_request', "'top_k'", 'from 1 to 100');

  const records = await gw.gateway.usage.list({ id });
  t.match(records, [{ model: 'acme-1', upstream: 'acme-main', completion_tokens: Number }], 'metered');
});

/** The simulator's address, from the test configuration's own modelc entry. */
function simulatorUrl(doc: Record<string, unknown>): string {
  const modelc = (doc.upstreams as Record<string, { base_url: string }>)['modelc-main']!;
  return modelc.base_url.replace(/\/modelc\/compatible-mode\/v1$/, '');
}
