/**
 * The response cache through the `openai` SDK against the simulator: a miss then a hit with one upstream
 * call, scopes, Cache-Control, streams replayed with their usage chunk, what is never stored, the ledger
 * of a hit, `DELETE /admin/cache`, and a revoked key.
 */
import 'reflect-metadata';
import t from 'tap';
import { startTestGateway } from '../../../helpers/gateway';
import { getJson, postJson } from '../../../helpers/http';
import { until } from '../../../helpers/wait';
import { freshPrompt, openaiFor, recordOf, upstreamCalls, withCache } from './cache-helpers';

t.test('cache', async (t) => {
  const gw = await startTestGateway(t, withCache());
  const client = openaiFor(gw, gw.key);
  const chat = (content: string, id: string, headers: Record<string, string> = {}, key = gw.key) =>
    openaiFor(gw, key)
      .chat.completions.create(
        { model: 'modela-5.5', messages: [{ role: 'user', content }] },
        { headers: { 'x-request-id': id, ...headers } },
      )
      .withResponse();
  const admin = (method: string, path: string) =>
    fetch(`${gw.gateway.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${gw.gateway.adminToken}` },
    });

  t.test('a miss, then a hit: the upstream is called once, and the hit says its age', async (t) => {
    const prompt = freshPrompt();
    const first = await chat(prompt, 'c-miss');
    t.equal(first.response.headers.get('x-gateway-cache'), 'miss');
    t.equal(first.response.headers.get('age'), null);
    const second = await chat(prompt, 'c-hit');
    t.equal(second.response.headers.get('x-gateway-cache'), 'hit');
    t.match(second.response.headers.get('age'), /^\d+$/);
    t.equal(second.response.headers.get('x-request-id'), 'c-hit', 'the hit is this request’s answer');
    t.strictSame(second.data, first.data, 'the same answer');
    t.equal(upstreamCalls(gw, 'c-miss'), 1);
    t.equal(upstreamCalls(gw, 'c-hit'), 0, 'the hit never reached the upstream');
  });

  t.test("a hit's usage record: the original counts, no cost, and what it saved", async (t) => {
    const prompt = freshPrompt();
    await chat(prompt, 'l-miss');
    await chat(prompt, 'l-hit');
    const miss = await recordOf(gw, 'l-miss');
    const hit = await recordOf(gw, 'l-hit');
    t.equal(miss.cache, undefined, 'a miss is an ordinary record');
    t.ok(miss.cost_micros! > 0);
    t.match(hit, {
      cache: 'hit',
      cost_micros: 0,
      saved_micros: miss.cost_micros,
      prompt_tokens: miss.prompt_tokens,
      completion_tokens: miss.completion_tokens,
      status: 200,
      outcome: 'ok',
      model: 'modela-5.5',
    });
  });

  t.test('another key misses: entries are the storing key’s', async (t) => {
    const prompt = freshPrompt();
    await chat(prompt, 'k-first');
    const other = await gw.createKey();
    const res = await chat(prompt, 'k-other', {}, other);
    t.equal(res.response.headers.get('x-gateway-cache'), 'miss');
    t.equal(upstreamCalls(gw, 'k-other'), 1);
  });

  t.test('the canonical body: member order and user do not make another call', async (t) => {
    const prompt = freshPrompt();
    const messages = [{ role: 'user', content: prompt }];
    await postJson(`${gw.url}/v1/chat/completions`, { model: 'modela-5.5', messages }, gw.key);
    const res = await postJson(
      `${gw.url}/v1/chat/completions`,
      { messages, user: 'someone', model: 'modela-5.5' },
      gw.key,
    );
    t.equal(res.headers.get('x-gateway-cache'), 'hit');
    const invalid = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modela-5.5', messages, user: 5 },
      gw.key,
    );
    t.equal(invalid.status, 400, 'a member the model refuses is refused, entry or not');
    t.match(invalid.body, { error: { code: 'invalid_request', message: /user/ } });
    const changed = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modela-5.5', messages, temperature: 0.5 },
      gw.key,
    );
    t.equal(changed.headers.get('x-gateway-cache'), 'miss', 'another parameter is another call');
  });

  t.test('Cache-Control: no-store bypasses, no-cache refreshes, max-age bounds the age', async (t) => {
    const prompt = freshPrompt();
    const bypass = await chat(prompt, 'cc-bypass', { 'cache-control': 'no-store' });
    t.equal(bypass.response.headers.get('x-gateway-cache'), 'bypass');
    const after = await chat(prompt, 'cc-after');
    t.equal(after.response.headers.get('x-gateway-cache'), 'miss', 'no-store stored nothing');
    const stored = await chat(prompt, 'cc-stored', { 'cache-control': 'no-store' });
    t.equal(stored.response.headers.get('x-gateway-cache'), 'bypass', 'no-store reads nothing either');
    t.equal(upstreamCalls(gw, 'cc-stored'), 1);
    const refresh = await chat(prompt, 'cc-refresh', { 'cache-control': 'no-cache' });
    t.equal(refresh.response.headers.get('x-gateway-cache'), 'miss');
    t.equal(upstreamCalls(gw, 'cc-refresh'), 1, 'no-cache does not read');
    const fresh = await chat(prompt, 'cc-fresh', { 'cache-control': 'max-age=600' });
    t.equal(fresh.response.headers.get('x-gateway-cache'), 'hit');
    // max-age=0 accepts an entry less than a second old: wait until the entry is a second old.
    await until(
      () => chat(prompt, 'cc-probe'),
      (probe) => Number(probe.response.headers.get('age')) >= 1,
      { what: 'an entry a second old' },
    );
    const stale = await chat(prompt, 'cc-stale', { 'cache-control': 'max-age=0' });
    t.equal(stale.response.headers.get('x-gateway-cache'), 'miss', 'older than max-age: a miss');
    t.equal(upstreamCalls(gw, 'cc-stale'), 1);
  });

  t.test('a stream is replayed with its text, finish reason and usage chunk', async (t) => {
    const prompt = freshPrompt();
    const read = async (id: string, includeUsage: boolean | undefined) => {
      const { data: stream, response } = await client.chat.completions
        .create(
          {
            model: 'modelc-3.6-plus',
            messages: [{ role: 'user', content: prompt }],
            stream: true,
            ...(includeUsage === undefined ? {} : { stream_options: { include_usage: includeUsage } }),
          },
          { headers: { 'x-request-id': id } },
        )
        .withResponse();
      let text = '';
      let finish: string | null = null;
      let usage: unknown;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, finish, usage, cache: response.headers.get('x-gateway-cache') };
    };
    const first = await read('s-miss', true);
    t.equal(first.cache, 'miss');
    t.ok(first.text.length > 0);
    t.ok(first.usage, 'the upstream’s usage chunk');
    const hit = await read('s-hit', true);
    t.strictSame(hit, { ...first, cache: 'hit' }, 'the same text, finish reason and usage chunk');
    t.equal(upstreamCalls(gw, 's-hit'), 0);
    const plain = await read('s-plain', undefined);
    t.equal(plain.cache, 'hit', 'stream_options is not part of the key');
    t.equal(plain.usage, undefined, 'no usage chunk when not asked for');
    t.equal(plain.text, first.text);
    const json = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modelc-3.6-plus', messages: [{ role: 'user', content: prompt }] },
      gw.key,
    );
    t.equal(json.headers.get('x-gateway-cache'), 'miss', 'a JSON call is stored apart');
    const hitRecord = await recordOf(gw, 's-hit');
    t.match(hitRecord, { cache: 'hit', stream: true, cost_micros: 0 });
  });

  t.test('a stream stored without its usage chunk gets one when a replay asks', async (t) => {
    const prompt = freshPrompt();
    const body = { model: 'modelc-3.6-plus', messages: [{ role: 'user' as const, content: prompt }] };
    const first = await client.chat.completions.create({ ...body, stream: true });
    for await (const chunk of first) t.equal(chunk.usage ?? undefined, undefined);
    const again = await client.chat.completions.create({
      ...body,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of again) if (chunk.usage) usage = chunk.usage;
    t.ok(usage && usage.prompt_tokens > 0 && usage.completion_tokens === 5, 'the stored call’s usage');
  });

  t.test('an error is never stored, nor a cut stream', async (t) => {
    const failing = freshPrompt('status=500');
    for (const id of ['e-1', 'e-2']) {
      const res = await postJson(
        `${gw.url}/v1/chat/completions`,
        { model: 'modela-5.5', messages: [{ role: 'user', content: failing }] },
        gw.key,
        { 'x-request-id': id },
      );
      t.equal(res.status, 500, res.text);
      t.equal(res.headers.get('x-gateway-cache'), 'miss');
      t.equal(upstreamCalls(gw, id), 1, 'each error call reaches the upstream');
    }
    const cut = freshPrompt('cut_after=2');
    for (const id of ['cut-1', 'cut-2']) {
      const res = await postJson(
        `${gw.url}/v1/chat/completions`,
        { model: 'modela-5.5', messages: [{ role: 'user', content: cut }], stream: true },
        gw.key,
        { 'x-request-id': id },
      );
      t.equal(res.headers.get('x-gateway-cache'), 'miss');
      t.equal(upstreamCalls(gw, id), 1);
    }
  });

  t.test('DELETE /admin/cache empties the cache, by filter or whole, and is audited', async (t) => {
    const prompt = freshPrompt();
    await chat(prompt, 'd-1');
    t.equal((await chat(prompt, 'd-2')).response.headers.get('x-gateway-cache'), 'hit');
    const none = await admin('DELETE', '/admin/cache?model=modelb-3.5-flash');
    t.strictSame(await none.json(), { deleted: 0 }, 'another model’s filter removes nothing of it');
    t.equal((await chat(prompt, 'd-3')).response.headers.get('x-gateway-cache'), 'hit');
    const bad = await admin('DELETE', '/admin/cache?kye_id=x');
    t.equal(bad.status, 400, 'a filter it does not know is refused, not taken for "all"');
    const all = await admin('DELETE', '/admin/cache');
    t.equal(all.status, 200);
    const { deleted } = (await all.json()) as { deleted: number };
    t.ok(deleted >= 1, `removed ${deleted}`);
    t.equal((await chat(prompt, 'd-4')).response.headers.get('x-gateway-cache'), 'miss');
    t.equal(upstreamCalls(gw, 'd-4'), 1);
    const audit = await getJson<{ data: { action: string; outcome: string }[] }>(
      `${gw.gateway.adminUrl}/admin/audit`,
      gw.gateway.adminToken,
    );
    t.match(audit.body.data, [{ action: 'cache.clear' }], 'the newest audit record');
  });

  t.test('a revoked key is refused, not answered from its entries', async (t) => {
    const created = await gw.gateway.keys.create({});
    const prompt = freshPrompt();
    await chat(prompt, 'r-1', {}, created.key);
    t.equal((await chat(prompt, 'r-2', {}, created.key)).response.headers.get('x-gateway-cache'), 'hit');
    await gw.gateway.keys.update(created.record.id, { enabled: false });
    const refused = await postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modela-5.5', messages: [{ role: 'user', content: prompt }] },
      created.key,
    );
    t.equal(refused.status, 403);
    t.match(refused.body, { error: { code: 'key_disabled' } });
  });

  t.test('metrics count answers by result', async (t) => {
    const res = await fetch(`${gw.gateway.adminUrl}/metrics`);
    const text = await res.text();
    t.match(text, /gateway_cache_requests_total\{result="hit"\} [1-9]/);
    t.match(text, /gateway_cache_requests_total\{result="miss"\} [1-9]/);
    t.match(text, /gateway_cache_entries [1-9]/);
  });
});
