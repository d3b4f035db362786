/**
 * A plugin defined here, in the test file, is registered by its manifest and served by name from the
 * configuration, with no edit to core/: an upstream family with its own API and a pipeline stage. Then
 * what the manifests guard: a name registered twice, and a pipeline whose order breaks a stage's rules.
 */
import 'reflect-metadata';
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { GatewayContext } from '../../../core/contracts/context';
import type { Middleware, Next } from '../../../core/contracts/stage';
import type { ModelApi, ModelSpec } from '../../../core/contracts/api';
import type { UpstreamPlugin, UpstreamRequest } from '../../../core/contracts/upstream';
import { type JsonObject } from '../../../core/base/json';
import { definePlugin } from '../../../core/plugins/define-plugin';
import {
  credentialHeaders,
  upstreamOptions,
  upstreamUrl,
  type UpstreamOptions,
} from '../../../core/upstream/upstream-options';
import type { SseEvent } from '../../../core/base/sse';
import { startTestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';

const EchoApi: ModelApi = {
  id: 'echo',
  method: 'POST',
  path: '/v1/echo',
  dialect: { ping: ': ping\n\n', errorFrame: (e) => `data: ${e.body()}\n\n` },
  genAi: { operation: 'chat' },
};

@definePlugin({
  kind: 'upstream',
  name: 'echo-family',
  options: upstreamOptions.extend({ greeting: z.string() }),
})
class EchoUpstream implements UpstreamPlugin {
  readonly models: readonly ModelSpec[] = [{ id: 'echo-1', api: EchoApi, created: 1, ownedBy: 'tests' }];
  constructor(private readonly options: UpstreamOptions & { greeting: string }) {}

  async prepare(ctx: GatewayContext): Promise<UpstreamRequest> {
    const body = { ...(await ctx.json()), greeting: this.options.greeting };
    return {
      url: upstreamUrl(this.options, '/echo'),
      headers: credentialHeaders(this.options),
      body: Buffer.from(JSON.stringify(body)),
      reader: {
        complete: true,
        failed: false,
        json: (b: JsonObject) => ({
          usage: { promptTokens: Number(b.tokens), completionTokens: 1, estimated: false },
        }),
        event: (ev: SseEvent) => ev,
        usage: () => ({ promptTokens: 0, completionTokens: 0, estimated: true }),
      },
    };
  }
}

@definePlugin({
  kind: 'middleware',
  name: 'stamp',
  options: z.object({ value: z.string() }).strict(),
  after: { auth: 'it stamps only authenticated calls' },
})
class StampMiddleware implements Middleware {
  constructor(private readonly options: { value: string }) {}
  async handle(ctx: GatewayContext, next: Next): Promise<void> {
    ctx.replyHeaders = { ...ctx.replyHeaders, 'x-stamp': this.options.value };
    return next();
  }
}

t.test('plugins defined in a test file are registered and served', async (t) => {
  t.ok(EchoUpstream && StampMiddleware, 'the decorators ran when the classes were defined');
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ received: JSON.parse(body), auth: req.headers.authorization, tokens: 9 }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  t.teardown(() => upstream.close());
  const port = (upstream.address() as AddressInfo).port;

  const gw = await startTestGateway(t, (doc) => {
    (doc.pipeline as unknown[]).splice(1, 0, { stamp: { value: 'from-yaml' } });
    (doc.upstreams as Record<string, unknown>)['echo-main'] = {
      plugin: 'echo-family',
      base_url: `http://127.0.0.1:${port}`,
      api_key: 'echo-secret',
      greeting: 'hello',
    };
  });

  const res = await postJson<{ received: JsonObject; auth: string }>(
    `${gw.url}/v1/echo`,
    { model: 'echo-1', text: 'x' },
    gw.key,
    { 'x-request-id': 'echo-req-1' },
  );
  t.equal(res.status, 200);
  t.strictSame(res.body.received, { model: 'echo-1', text: 'x', greeting: 'hello' });
  t.equal(res.body.auth, 'Bearer echo-secret', 'the upstream credential from the yaml, not the client key');
  t.equal(res.headers.get('x-stamp'), 'from-yaml', 'the test middleware ran with its options');

  const [record] = await gw.gateway.usage.list({ id: 'echo-req-1' });
  t.equal(record?.prompt_tokens, 9, 'usage read by the plugin and metered by the built-in stage');
  t.equal(record?.endpoint, 'echo');

  const models = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } });
  t.ok(((await models.json()) as { data: { id: string }[] }).data.some((m) => m.id === 'echo-1'));

  const wrongEndpoint = await postJson(
    `${gw.url}/v1/chat/completions`,
    { model: 'echo-1', messages: [] },
    gw.key,
  );
  t.equal(wrongEndpoint.status, 404);
  t.match(wrongEndpoint.text, /served on POST \/v1\/echo/);
});

t.test('a plugin name is registered once per kind', (t) => {
  const again = () =>
    definePlugin({ kind: 'middleware', name: 'stamp' })(
      class {
        handle = (_ctx: GatewayContext, next: Next) => next();
      },
    );
  t.throws(again, /a middleware plugin named "stamp" is already registered/);
  t.throws(
    () => definePlugin({ kind: 'middleware', name: 'auth' })(class {}),
    /named "auth" is already registered/,
    'a built-in is not replaced silently either',
  );
  t.end();
});

t.test("start-up refuses a pipeline that breaks a stage's order, naming the entry", async (t) => {
  const refused = async (pipeline: unknown[]): Promise<unknown> =>
    startTestGateway(t, (doc) => {
      doc.pipeline = pipeline;
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
  t.match(
    await refused(['model-router', 'auth', 'usage-metering']),
    {
      path: 'pipeline[0]',
      message:
        /model-router must come after auth \(it checks the model against the key's and its team's allowed models\), which is pipeline\[1\]/,
    },
    'the router before auth would skip the allowed models',
  );
  t.match(await refused(['auth', 'rate-limit', 'usage-metering']), {
    path: 'pipeline[1]',
    message: /rate-limit needs model-router before it .*add model-router/,
  });
  t.match(await refused(['model-router', 'budget']), {
    path: 'pipeline[1]',
    message: /budget needs auth before it \(budgets belong to API keys and their teams\)/,
  });
  t.match(await refused(['auth', 'usage-metering', 'model-router']), {
    path: 'pipeline[1]',
    message: /usage-metering must come after model-router/,
  });
  t.match(
    await refused([{ stamp: { value: 'x' } }, 'auth', 'model-router']),
    { path: 'pipeline[0]', message: /stamp must come after auth \(it stamps only authenticated calls\)/ },
    "a plugin's own manifest rules hold like the built-ins'",
  );
});
