/**
 * The cache among other stages: an answer a stage nearer the upstream changed (a guardrail's mask) is
 * never stored, JSON or stream; a stage nearer the client acts on every hit again; an answer over
 * `max_entry_size` is not stored; a stage's own answer is not stored.
 */
import 'reflect-metadata';
import t from 'tap';
import type { GatewayContext } from '../../../../core/contracts/context';
import type { EventFilter, JsonAnswer, Middleware } from '../../../../core/contracts/stage';
import { definePlugin } from '../../../../core/plugins/define-plugin';
import { startTestGateway, type ConfigDoc } from '../../../helpers/gateway';
import { postJson } from '../../../helpers/http';
import { freshPrompt, upstreamCalls, withCache } from './cache-helpers';

/** Replaces the text of answers that carry `x-change`: JSON bodies and stream chunks. */
@definePlugin({ kind: 'middleware', name: 'test-change' })
class ChangeStage implements Middleware {
  response(ctx: GatewayContext, answer: JsonAnswer): void {
    if (ctx.headers['x-change'] === undefined) return;
    answer.replace({ ...answer.json(), changed: true });
  }

  events(ctx: GatewayContext): EventFilter | undefined {
    if (ctx.headers['x-change'] === undefined) return undefined;
    return { event: (ev) => ({ ...ev, data: ev.data.replace('"content":"', '"content":"[masked] ') }) };
  }
}

/** Marks every JSON answer the client gets. */
@definePlugin({ kind: 'middleware', name: 'test-stamp' })
class StampStage implements Middleware {
  response(_ctx: GatewayContext, answer: JsonAnswer): void {
    answer.headers['x-stamped'] = 'yes';
  }
}

t.ok(ChangeStage && StampStage, 'the stages are registered by their manifests');

/** test-stamp before the cache, test-change after it (nearer the upstream). */
function around(doc: ConfigDoc): void {
  withCache({ max_entry_size: '2kb' })(doc);
  const pipeline = doc.pipeline as unknown[];
  const cache = pipeline.findIndex((s) => typeof s === 'object' && s !== null && 'cache' in s);
  pipeline.splice(cache + 1, 0, 'test-change');
  pipeline.splice(cache, 0, 'test-stamp');
}

t.test('the cache among stages', async (t) => {
  const gw = await startTestGateway(t, around);
  const call = (content: string, id: string, body: object = {}, headers: Record<string, string> = {}) =>
    postJson(
      `${gw.url}/v1/chat/completions`,
      { model: 'modelc-3.6-plus', messages: [{ role: 'user', content }], ...body },
      gw.key,
      { 'x-request-id': id, ...headers },
    );

  t.test('a JSON answer changed nearer the upstream is not stored', async (t) => {
    const prompt = freshPrompt();
    const changed = await call(prompt, 'ch-1', {}, { 'x-change': '1' });
    t.match(changed.body, { changed: true });
    const next = await call(prompt, 'ch-2');
    t.equal(next.headers.get('x-gateway-cache'), 'miss');
    t.equal(upstreamCalls(gw, 'ch-2'), 1);
  });

  t.test('a stream changed nearer the upstream is not stored', async (t) => {
    const prompt = freshPrompt();
    const changed = await call(prompt, 'chs-1', { stream: true }, { 'x-change': '1' });
    t.match(changed.text, /\[masked\]/);
    const next = await call(prompt, 'chs-2', { stream: true });
    t.equal(next.headers.get('x-gateway-cache'), 'miss');
    t.notMatch(next.text, /\[masked\]/);
  });

  t.test('a stage nearer the client acts on hits too', async (t) => {
    const prompt = freshPrompt();
    const first = await call(prompt, 'st-1');
    const hit = await call(prompt, 'st-2');
    t.equal(hit.headers.get('x-gateway-cache'), 'hit');
    t.equal(first.headers.get('x-stamped'), 'yes');
    t.equal(hit.headers.get('x-stamped'), 'yes', 'the stage before the cache saw the hit');
  });

  t.test('an answer over max_entry_size is not stored', async (t) => {
    const prompt = freshPrompt().replace('tokens=5', 'tokens=800');
    const big = await call(prompt, 'big-1');
    t.ok(big.text.length > 2048, `the answer is ${big.text.length} bytes`);
    const again = await call(prompt, 'big-2');
    t.equal(again.headers.get('x-gateway-cache'), 'miss');
    const stream = freshPrompt().replace('tokens=5', 'tokens=800');
    await call(stream, 'bigs-1', { stream: true });
    t.equal((await call(stream, 'bigs-2', { stream: true })).headers.get('x-gateway-cache'), 'miss');
  });
});
