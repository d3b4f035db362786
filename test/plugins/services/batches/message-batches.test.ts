/**
 * Anthropic's Message Batches through the `@anthropic-ai/sdk`: on modeld (whose vendor has the API) the
 * vendor runs the batch, and every request ends with a result per `custom_id`, billed at the batch price
 * as the same call alone would be metered; a cancelled one says which requests never ran.
 */
import t from 'tap';
import type Anthropic from '@anthropic-ai/sdk';
import { startTestGateway } from '../../../helpers/gateway';
import { gatewayAnthropic } from '../../../helpers/anthropic-client';
import { until } from '../../../helpers/wait';
import { batchRecords, failedMessage, failedStatus } from '../../../helpers/batches';

const MODEL = 'modeld-sonnet-4-6';

const request = (custom_id: string, content: string) => ({
  custom_id,
  params: { model: MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content }] },
});

const ended = (client: Anthropic, id: string) =>
  until(
    () => client.messages.batches.retrieve(id),
    (b) => b.processing_status === 'ended',
    { what: `message batch ${id} to end`, timeoutMs: 20_000 },
  );

t.test('message batches through the anthropic SDK', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.batches = { native_poll_every: '100ms' };
    doc.prices = {
      ...(doc.prices as object),
      [MODEL]: { input_per_mtok: 3, output_per_mtok: 15, batch: { discount: 0.5 } },
    };
  });
  const client = gatewayAnthropic(gw);

  t.test('a batch ends with a result per custom_id, each billed once at the batch price', async (t) => {
    const created = await client.messages.batches.create({
      requests: [request('first', 'one #sim tokens=3'), request('second', 'two #sim tokens=4')],
    });
    t.match(created, { type: 'message_batch', processing_status: 'in_progress' });
    t.match(created.id, /^msgbatch_/);
    const batch = await ended(client, created.id);
    t.match(batch.request_counts, { succeeded: 2, errored: 0, canceled: 0, expired: 0, processing: 0 });
    t.ok(batch.results_url?.endsWith(`/v1/messages/batches/${batch.id}/results`));

    const results: Anthropic.Messages.Batches.MessageBatchIndividualResponse[] = [];
    for await (const result of await client.messages.batches.results(batch.id)) results.push(result);
    t.same(results.map((r) => r.custom_id).sort(), ['first', 'second']);
    const second = results.find((r) => r.custom_id === 'second')!.result;
    t.equal(second.type, 'succeeded');
    if (second.type === 'succeeded') t.equal(second.message.usage.output_tokens, 4, "the vendor's message");

    t.equal(gw.sim.batches.view('modeld').batches.length, 1, 'the vendor ran one batch');
    const records = await batchRecords(gw.gateway.usage, batch.id);
    t.same(records.map((r) => r.custom_id).sort(), ['first', 'second'], 'one usage record per request');
    const alone = await client.messages.create(request('x', 'two #sim tokens=4').params);
    const [single] = (await gw.gateway.usage.list({ limit: 100 })).filter((r) => r.batch_id === undefined);
    const line = records.find((r) => r.custom_id === 'second')!;
    t.equal(alone.usage.output_tokens, 4);
    t.equal(line.prompt_tokens, single?.prompt_tokens, 'metered as the same call alone');
    t.equal(line.completion_tokens, single?.completion_tokens);
    t.equal(line.cost_micros, Math.round(single!.cost_micros! / 2), 'at half the price');
  });

  t.test('a cancelled batch: the requests never run end canceled', async (t) => {
    await fetch(`${gw.sim.url}/_sim/batches`, {
      method: 'POST',
      body: JSON.stringify({ duration_ms: 60_000 }),
    });
    t.teardown(() =>
      fetch(`${gw.sim.url}/_sim/batches`, { method: 'POST', body: JSON.stringify({ duration_ms: 1000 }) }),
    );
    const before = gw.sim.batches.view('modeld').batches.length;
    const created = await client.messages.batches.create({
      requests: ['a', 'b', 'c'].map((id) => request(id, `${id} #sim tokens=2`)),
    });
    await until(
      () => gw.sim.batches.view('modeld').batches.length,
      (n) => n > before,
      { what: 'the batch handed to the vendor' },
    );
    const canceling = await client.messages.batches.cancel(created.id);
    t.ok(['canceling', 'ended'].includes(canceling.processing_status));
    const batch = await ended(client, created.id);
    t.equal(batch.request_counts.canceled + batch.request_counts.succeeded, 3);
    const results: Anthropic.Messages.Batches.MessageBatchIndividualResponse[] = [];
    for await (const result of await client.messages.batches.results(batch.id)) results.push(result);
    t.equal(results.length, 3, 'a result per custom_id');
    t.ok(
      results.some((r) => r.result.type === 'canceled'),
      'the requests not run say canceled',
    );
  });

  t.test('another key sees none of it; bad requests are named', async (t) => {
    const mine = await client.messages.batches.create({ requests: [request('only', 'hi #sim tokens=1')] });
    const other = gatewayAnthropic({ url: gw.url, key: await gw.createKey() });
    t.equal(await failedStatus(other.messages.batches.retrieve(mine.id)), 404);
    t.equal(await failedStatus(other.messages.batches.results(mine.id)), 404);
    const bad = client.messages.batches.create({
      requests: [
        request('ok', 'hi'),
        { custom_id: 'nope', params: { ...request('x', 'hi').params, model: 'modelz-1' } },
      ],
    });
    t.match(await failedMessage(bad), /400.*requests\[1\].*modelz-1/);
  });
});
