/**
 * What the batches endpoints refuse, each with the contract's error body and a message naming what is
 * wrong: lines that are not requests the key could make (named by line), files over the caps, uploads
 * that are not multipart, unknown ids, and a batch whose estimate does not fit its key's budget.
 */
import t from 'tap';
import { startTestGateway } from '../../../helpers/gateway';
import { chatLines } from '../../../helpers/batches';
import { isError } from '../../../helpers/errors';
import { postJson, type JsonResponse } from '../../../helpers/http';

const MODEL = 'modelc-3.6-plus';

/** Uploads `content` as the `file` part, as the openai SDK does. */
async function upload(url: string, key: string, content: string, purpose = 'batch'): Promise<JsonResponse> {
  const form = new FormData();
  form.set('purpose', purpose);
  form.set('file', new Blob([content]), 'input.jsonl');
  const res = await fetch(`${url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: JSON.parse(text) as Record<string, unknown>,
    text,
  };
}

const line = (custom_id: string, body: Record<string, unknown>, url = '/v1/chat/completions'): string =>
  JSON.stringify({ custom_id, method: 'POST', url, body });

const chat = (model = MODEL) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

t.test('the batches endpoints refuse bad input', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    doc.batches = { max_lines: 3, max_file_size: 2048 };
    doc.prices = { ...(doc.prices as object), [MODEL]: { input_per_mtok: 0.8, output_per_mtok: 4.8 } };
  });

  t.test('lines that are not requests, each named by its line', (t) => {
    const cases: [string, string, string[]][] = [
      ['not JSON', `${line('a', chat())}\n{nope\n`, ['line 2', 'not a JSON object']],
      ['an unknown model', line('a', chat('modelz-1')), ['line 1', 'modelz-1']],
      ['a url the batch API does not take', line('a', chat(), '/v1/images/generations'), ['line 1', "'url'"]],
      [
        'mixed urls',
        `${line('a', chat())}\n${line('b', { model: MODEL, input: 'x' }, '/v1/embeddings')}`,
        ['line 2', 'differs'],
      ],
      ['a custom_id used twice', `${line('a', chat())}\n${line('a', chat())}`, ['line 2', "custom_id 'a'"]],
      ['a stream', line('a', { ...chat(), stream: true }), ['line 1', 'cannot stream']],
      ['no body.model', line('a', { messages: [] }), ['line 1', "'body.model'"]],
      [
        'no custom_id',
        JSON.stringify({ method: 'POST', url: '/v1/chat/completions', body: chat() }),
        ['line 1', "'custom_id'"],
      ],
    ];
    for (const [what, content, mentions] of cases) {
      t.test(what, async (t) =>
        isError(t, await upload(gw.url, gw.key, content), 400, 'invalid_request', ...mentions),
      );
    }
    t.end();
  });

  t.test('a model the key may not use is refused at upload, naming the line', async (t) => {
    const narrow = await gw.createKey({ allowed_models: ['modela-5.5'] });
    const res = await upload(gw.url, narrow, `${line('a', chat('modela-5.5'))}\n${line('b', chat())}\n`);
    isError(t, res, 400, 'invalid_request', 'line 2', MODEL);
  });

  t.test('files over the caps', async (t) => {
    const many = chatLines([1, 2, 3, 4].map((n) => ({ custom_id: `r${n}`, model: MODEL, content: 'hi' })));
    isError(t, await upload(gw.url, gw.key, many), 400, 'invalid_request', 'batches.max_lines');
    const big = line('a', { ...chat(), metadata: { pad: 'x'.repeat(3000) } });
    isError(t, await upload(gw.url, gw.key, big), 400, 'invalid_request', 'batches.max_file_size');
  });

  t.test('uploads that are not multipart, or not for batches', async (t) => {
    isError(
      t,
      await postJson(`${gw.url}/v1/files`, { purpose: 'batch' }, gw.key),
      400,
      'invalid_request',
      'multipart',
    );
    const broken = await fetch(`${gw.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--xy',
    });
    t.equal(broken.status, 400, 'a multipart body cut short');
    isError(
      t,
      await upload(gw.url, gw.key, line('a', chat()), 'fine-tune'),
      400,
      'invalid_request',
      'purpose',
    );
  });

  t.test('a batch of an unknown file, of another endpoint, or another window', async (t) => {
    const file = await upload(gw.url, gw.key, line('a', chat()));
    const create = (body: Record<string, unknown>) => postJson(`${gw.url}/v1/batches`, body, gw.key);
    const base = { input_file_id: file.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' };
    isError(t, await create({ ...base, input_file_id: 'file-nope' }), 404, 'file_not_found');
    isError(t, await create({ ...base, endpoint: '/v1/embeddings' }), 400, 'invalid_request', 'endpoint');
    isError(
      t,
      await create({ ...base, completion_window: '48h' }),
      400,
      'invalid_request',
      'completion_window',
    );
    isError(t, await create({ ...base, metadata: { n: 1 } }), 400, 'invalid_request', 'metadata');
  });

  t.test(
    "a batch whose estimate does not fit the key's budget is refused before anything is sent",
    async (t) => {
      const poor = await gw.createKey({ budget: { amount_micros: 10, period: 'total' } });
      const file = await upload(gw.url, poor, line('a', chat()));
      const before = gw.sim.log.list().length;
      const res = await postJson(
        `${gw.url}/v1/batches`,
        { input_file_id: file.body.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
        poor,
      );
      isError(t, res, 429, 'budget_exhausted');
      t.equal(gw.sim.log.list().length, before, 'the upstream heard nothing');
    },
  );
});
