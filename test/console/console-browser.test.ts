/**
 * The console in headless Chromium against a real gateway: sign in, create a key (with allowed tools and
 * guardrails, saved as entered) and see it once, use it with the openai client, find the call in the usage chart and table
 * (filtered by model, key and a custom range of days), find calls on chat completions, responses and
 * embeddings stacked by endpoint, see the spend the response cache saved beside the spend, find real
 * video tasks in the task list and one's status history, see the key's last use and spend, edit
 * (tools and guardrails too), rotate, disable (the key then gets 403), delete. A screenshot of each step goes to
 * test-output/screenshots/.
 */
import t, { type Test } from 'tap';
import { readFile } from 'node:fs/promises';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import type { KeyWithActivity } from '../../core/admin/wire';
import type { UsageRecord } from '../../core/stores/usage-store';
import { adminCall } from '../helpers/admin';
import { needsChromium, openConsolePage, shot } from '../helpers/chromium';
import { startTestGateway, type TestGateway } from '../helpers/gateway';
import { eventually } from '../helpers/wait';
import { submitVideo, untilFinished, videoBody } from '../plugins/video-helpers';

/** A second model, called with another key, for the usage view's filters. */
const OTHER_MODEL = 'modelc-3.6-plus';

/** Calls on the endpoints beside chat completions, for the usage view stacked by endpoint. */
const RESPONSES_CALLS = 2;
const EMBEDDINGS_CALLS = 3;

const chatWith = (gw: TestGateway, apiKey: string, model = 'modela-5.5') =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 }).chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hello from the console test' }],
  });

const row = (page: Page, id: string) => page.locator(`tr[data-key="${id}"]`);

async function signIn(t: Test, page: Page, gw: TestGateway): Promise<void> {
  const started = Date.now();
  await page.goto(`${gw.gateway.adminUrl}/`);
  await page.getByLabel('Admin token').waitFor();
  t.comment(`sign-in page ready in ${Date.now() - started} ms`);
  await shot(page, '01-sign-in');
  await page.getByLabel('Admin token').fill('not-the-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'refused' }).waitFor();
  t.pass('a wrong token is refused on the sign-in page');
  await shot(page, '02-sign-in-refused');
  await page.getByLabel('Admin token').fill(gw.gateway.adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Keys' }).waitFor();
  const held = await page.evaluate('({ session: sessionStorage.length, cookie: document.cookie })');
  t.same(held, { session: 1, cookie: '' }, 'the token is in sessionStorage, not in a cookie');
  t.notMatch(page.url(), gw.gateway.adminToken, 'nor in the URL');
}

/** The key's record as the admin API shows it. */
async function keyRecord(gw: TestGateway, id: string): Promise<KeyWithActivity> {
  return (await adminCall<KeyWithActivity>(gw, gw.gateway.adminToken, 'GET', `/admin/keys/${id}`)).body;
}

/** Creates a key in the dialog; returns it as shown that once. */
async function createKey(t: Test, page: Page, gw: TestGateway): Promise<string> {
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByLabel('Description').fill('browser test');
  await page.getByLabel('Allowed models').fill('modela-5.5');
  await page.getByLabel('Allowed tools').fill('demo__add, search__*');
  await page.getByLabel('Guardrails').fill('pii-mask, no.secrets');
  await page.getByLabel('Rate limit (requests/min)').fill('60');
  await page.getByLabel('Tokens/min').fill('90000');
  await page.getByLabel('Concurrent requests').fill('4');
  await page.getByLabel('Budget').fill('5');
  await page.getByLabel('Expires (UTC)').fill('2031-01-01T00:00');
  await shot(page, '02a-key-dialog');
  await page.locator('dialog').getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('textbox', { name: 'New key', exact: true });
  await shown.waitFor();
  const key = await shown.inputValue();
  t.match(key, /^sk-[A-Za-z0-9_-]{43}$/, 'the full key is shown');
  t.match(await page.getByRole('alert').innerText(), /only this once/, 'with a warning');
  await shot(page, '03-key-shown-once');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  t.notOk((await page.content()).includes(key), 'the key leaves the page when the dialog closes');
  await page.reload();
  await row(page, key.slice(0, 11)).waitFor();
  t.notOk((await page.content()).includes(key), 'and is not shown after a reload');
  t.match(
    await row(page, key.slice(0, 11)).innerText(),
    /browser test[\s\S]*modela-5\.5\s+demo__add, search__\*\s+pii-mask, no\.secrets\s+60\/min, 90000 tokens\/min, 4 at once[\s\S]*5\.00/,
  );
  t.strictSame(
    (await keyRecord(gw, key.slice(0, 11))).allowed_tools,
    ['demo__add', 'search__*'],
    'the tools entered are saved on the key',
  );
  t.strictSame(
    (await keyRecord(gw, key.slice(0, 11))).guardrails,
    ['pii-mask', 'no.secrets'],
    'the guardrails entered are saved on the key',
  );
  await shot(page, '04-keys');
  return key;
}

async function usage(t: Test, page: Page, id: string): Promise<void> {
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.locator('.chart canvas').waitFor();
  await page.locator('table.usage tbody tr', { hasText: 'modela-5.5' }).waitFor();
  await page.locator('table.usage tbody tr', { hasText: OTHER_MODEL }).waitFor();
  t.pass('the usage view draws a chart (a canvas) and lists the calls of every key');
  const usageRows = page.locator('table.usage tbody tr');

  await page.getByLabel('Model').selectOption(OTHER_MODEL);
  await usageRows.filter({ hasText: 'modela-5.5' }).waitFor({ state: 'detached' });
  t.ok(
    (await usageRows.allInnerTexts()).every((r) => r.includes(OTHER_MODEL)),
    'filtered by model',
  );
  await page.getByLabel('Model').selectOption('');
  await usageRows.filter({ hasText: 'modela-5.5' }).waitFor();

  await page.getByPlaceholder('Key id (all keys)').fill(id);
  await page.getByPlaceholder('Key id (all keys)').press('Enter');
  // The page marks the query its table shows: wait for the one filtered by the key.
  await page.locator(`section[data-loaded*="key_id=${id}"]`).waitFor();
  t.equal(await usageRows.filter({ hasText: OTHER_MODEL }).count(), 0, "another key's model is gone");
  const cells = await usageRows.filter({ hasText: 'modela-5.5' }).locator('td').allInnerTexts();
  t.equal(cells[1], '1', "one request by the key, in the table, and only the key's");
  await shot(page, '05-usage');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const text = await readFile(await download.path(), 'utf8');
  t.match(
    text,
    /^period,model,requests,input_tokens,output_tokens,cost,cost_unknown_requests,saved_by_cache,batch_requests,batch_cost\r\n/,
  );
  t.match(text, /,modela-5\.5,1,/, 'the CSV holds the table');

  await page.getByLabel('Range').selectOption('custom');
  await page.getByLabel('From (UTC)').fill('2020-01-01');
  await page.getByLabel('To (UTC)').fill('2020-01-31');
  await page.locator('td.empty', { hasText: 'No usage in this range' }).waitFor();
  t.pass('a custom range of days without calls: an empty table');
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel('From (UTC)').fill(today);
  await page.getByLabel('To (UTC)').fill(today);
  await usageRows.filter({ hasText: 'modela-5.5' }).waitFor();
  t.pass("a custom range of today's date: the call again");
  await page.getByLabel('From (UTC)').fill('2030-01-02');
  await page.getByLabel('To (UTC)').fill('2030-01-01');
  t.match(await page.getByRole('alert').innerText(), /start on or before/, 'a range backwards is refused');
  await page.getByLabel('Range').selectOption('7');
  await page.getByLabel('Per').selectOption('day');
  await usageRows.filter({ hasText: 'modela-5.5' }).waitFor();
  await shot(page, '06-usage-by-day');
}

/** Real calls on /v1/responses and /v1/embeddings with the gateway's own key, each once metered. */
async function callOtherEndpoints(t: Test, gw: TestGateway): Promise<void> {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  for (let i = 0; i < RESPONSES_CALLS; i++) {
    const response = await client.responses.create({ model: 'modela-5.5', input: `hello #${i}` });
    t.equal(response.status, 'completed', 'a call on /v1/responses');
  }
  for (let i = 0; i < EMBEDDINGS_CALLS; i++) {
    const embedded = await client.embeddings.create({
      model: 'modela-embedding-3-small',
      input: `text ${i}`,
    });
    t.ok(embedded.data[0]?.embedding.length, 'a call on /v1/embeddings');
  }
  await eventually(async () => {
    const records = await gw.gateway.usage.list();
    const on = (endpoint: string) => records.filter((r) => r.endpoint === endpoint).length;
    return on('responses') === RESPONSES_CALLS && on('embeddings') === EMBEDDINGS_CALLS;
  });
}

/** The usage view stacked by endpoint: legend and table name each endpoint with its calls; its filter. */
async function usageByEndpoint(t: Test, page: Page, chats: number): Promise<void> {
  await page.getByPlaceholder('Key id (all keys)').fill('');
  await page.getByPlaceholder('Key id (all keys)').press('Enter');
  await page.getByLabel('Range').selectOption('1');
  await page.getByLabel('Per').selectOption('hour');
  await page.getByLabel('Stack by').selectOption('endpoint');
  await page
    .locator('section[data-loaded*="group_by=endpoint%2Chour"]:not([data-loaded*="key_id"])')
    .waitFor();
  await page.getByRole('heading', { name: 'Totals by endpoint' }).waitFor();
  const requestsOf = async (endpoint: string) =>
    (await page.locator(`table.usage tr[data-group="${endpoint}"] td`).allInnerTexts())[1];
  t.equal(await requestsOf('chat-completions'), String(chats), 'the table: chat completions');
  t.equal(await requestsOf('responses'), String(RESPONSES_CALLS), 'the table: responses');
  t.equal(await requestsOf('embeddings'), String(EMBEDDINGS_CALLS), 'the table: embeddings');
  t.strictSame(
    await page.locator('table.usage thead th').allInnerTexts(),
    [
      'endpoint',
      'requests',
      'input tokens',
      'output tokens',
      'cost',
      'cost unknown requests',
      'saved by cache',
      'batch requests',
      'batch cost',
    ],
    'the table names its groups endpoints',
  );
  const legend = await page.locator('.chart .u-legend').innerText();
  for (const endpoint of ['chat-completions', 'responses', 'embeddings']) {
    t.match(legend, endpoint, `the chart's legend names ${endpoint}`);
  }
  await shot(page, '06a-usage-by-endpoint');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const text = await readFile(await download.path(), 'utf8');
  t.match(
    text,
    /^period,endpoint,requests,input_tokens,output_tokens,cost,cost_unknown_requests,saved_by_cache,batch_requests,batch_cost\r\n/,
  );
  t.match(text, new RegExp(`,embeddings,${EMBEDDINGS_CALLS},`), 'the CSV holds the endpoints');

  await page.getByLabel('Endpoint').selectOption('embeddings');
  await page.locator('section[data-loaded*="endpoint=embeddings"]').waitFor();
  t.strictSame(
    await page.locator('table.usage tbody tr').allInnerTexts(),
    [await page.locator('table.usage tr[data-group="embeddings"]').innerText()],
    'filtered by endpoint: embeddings alone',
  );
  t.equal(await requestsOf('embeddings'), String(EMBEDDINGS_CALLS), 'with all its calls');
  await shot(page, '06b-usage-embeddings-only');
  await page.getByLabel('Metric').selectOption('cost');
  await page.locator('.chart canvas').waitFor();
  t.equal(await requestsOf('embeddings'), String(EMBEDDINGS_CALLS), 'a chart of no known cost still draws');
  await shot(page, '06c-usage-embeddings-cost');
  await page.getByLabel('Metric').selectOption('requests');
  await page.getByLabel('Endpoint').selectOption('');
  await page.getByLabel('Stack by').selectOption('model');
  await page.getByRole('heading', { name: 'Totals by model' }).waitFor();
}

/** A cache's hit as usage-metering records it: free, with what the call it repeats would have cost. */
function hitRecord(gw: TestGateway, model: string, saved: number): UsageRecord {
  return {
    id: `hit-${model}-${saved}-${Math.random()}`,
    key_id: gw.key.slice(0, 11),
    model,
    upstream: 'modela-main',
    endpoint: 'chat-completions',
    status: 200,
    stream: false,
    prompt_tokens: 1_000,
    completion_tokens: 500,
    total_tokens: 1_500,
    cost_micros: 0,
    cache: 'hit',
    saved_micros: saved,
    estimated: false,
    outcome: 'ok',
    latency_ms: 3,
    created_at: new Date().toISOString(),
  };
}

/** Hits in the store: the view shows what they saved beside the spend, in the table, and as a chart. */
async function savedByCache(t: Test, page: Page, gw: TestGateway): Promise<void> {
  for (const r of [
    hitRecord(gw, 'modela-5.5', 6_250),
    hitRecord(gw, 'modela-5.5', 6_250),
    hitRecord(gw, 'modela-5.5', 6_250),
    hitRecord(gw, OTHER_MODEL, 2_500),
  ])
    gw.gateway.usage.record(r);
  const records = await gw.gateway.usage.list();
  const spent = records.reduce((sum, r) => sum + (r.cost_micros ?? 0), 0);
  const unknown = records.filter((r) => r.cost_micros === null).length;
  // Mounted afresh, the view reads the summary again.
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('link', { name: 'Usage' }).click();
  const saved = page.locator('[data-figure="saved"]');
  await saved.locator('dd', { hasText: '0.02125' }).waitFor();
  t.match(await saved.innerText(), /Saved by cache\s+0\.02125/, "the range's savings: 3 × 0.00625 + 0.0025");
  const spend = /^Spend\s+([\d.]+)\s+and (\d+) requests of unknown cost$/.exec(
    await page.locator('[data-figure="spend"]').innerText(),
  );
  t.strictSame(
    [Math.round(Number(spend?.[1]) * 1e6), Number(spend?.[2])],
    [spent, unknown],
    'beside the spend of the calls made (hits adding nothing), and how many had no price',
  );
  const savedOf = (model: string) => cellOf(page, model, 'saved by cache');
  t.equal(await savedOf('modela-5.5'), '0.01875', 'the table: saved by cache per model');
  t.equal(await savedOf(OTHER_MODEL), '0.0025');
  t.equal(await cellOf(page, 'total', 'saved by cache'), '0.02125', 'and in all');
  await shot(page, '06d-usage-saved-by-cache');
  await page.getByLabel('Metric').selectOption('saved');
  await page.locator('.chart canvas').waitFor();
  t.match(await page.locator('.chart .u-legend').innerText(), /modela-5\.5/, 'a chart of the savings');
  await shot(page, '06e-usage-saved-chart');
  await page.getByLabel('Metric').selectOption('requests');
}

/** The usage table's cell of `column` in the row of `group` (`total`: the totals row). */
async function cellOf(page: Page, group: string, column: string): Promise<string | undefined> {
  const columns = await page.locator('table.usage thead th').allInnerTexts();
  const row = group === 'total' ? 'table.usage tr.total' : `table.usage tr[data-group="${group}"]`;
  return (await page.locator(`${row} td`).allInnerTexts())[columns.indexOf(column)];
}

/** Lines of batches in the store: the view shows their share of the spend apart, as a figure and a column. */
async function batchSpend(t: Test, page: Page, gw: TestGateway): Promise<void> {
  for (const custom_id of ['row-1', 'row-2'])
    gw.gateway.usage.record({
      ...hitRecord(gw, OTHER_MODEL, 0),
      id: `batch_demo:${custom_id}`,
      cost_micros: 1_500,
      cache: undefined,
      saved_micros: undefined,
      batch_id: 'batch_demo',
      custom_id,
    });
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('link', { name: 'Usage' }).click();
  const batches = page.locator('[data-figure="batches"]');
  await batches.waitFor();
  t.match(
    await batches.innerText(),
    /Of which batches\s+0\.003\s+2 requests in batches/,
    'the batch spend apart',
  );
  t.equal(await cellOf(page, OTHER_MODEL, 'batch cost'), '0.003', 'the table: batch cost per model');
  t.equal(await cellOf(page, OTHER_MODEL, 'batch requests'), '2');
  t.equal(await cellOf(page, 'modela-5.5', 'batch requests'), '0', 'none for a model without batches');
  await shot(page, '06f-usage-batch-spend');
}

/** The task list, its status filter and a task's detail with its history. */
async function tasks(t: Test, page: Page, done: string, failed: string): Promise<void> {
  await page.getByRole('link', { name: 'Video tasks' }).click();
  const taskRow = (id: string) => page.locator(`tr[data-task="${id}"]`);
  await taskRow(done).waitFor();
  await taskRow(failed).waitFor();
  t.match(await taskRow(done).innerText(), /succeeded[\s\S]*videoa-1\.1-t2v[\s\S]*generic[\s\S]*0\.50/);
  t.match(await taskRow(failed).innerText(), /failed[\s\S]*InternalError/, 'the upstream error is listed');
  await shot(page, '07-tasks');
  await page.getByLabel('Status').selectOption('failed');
  await taskRow(done).waitFor({ state: 'detached' });
  t.equal(await taskRow(failed).count(), 1, 'filtered by status');
  await page.getByLabel('Status').selectOption('');
  await taskRow(done).getByRole('button').click();
  const dialog = page.locator('dialog');
  await dialog.locator('table.history tbody tr').nth(2).waitFor();
  t.strictSame(
    await dialog.locator('table.history tbody tr td:first-child').allInnerTexts(),
    ['queued', 'running', 'succeeded'],
    'the detail shows the status history',
  );
  t.match(await dialog.innerText(), /Cost\s+0\.50/);
  await shot(page, '08-task-detail');
  await dialog.getByRole('button', { name: 'Close' }).click();
}

/** Answers the confirmation dialog of a row's `action` (Disable, Delete). */
async function confirmAction(page: Page, id: string, action: string, screenshot: string): Promise<void> {
  await row(page, id).getByRole('button', { name: action }).click();
  await shot(page, screenshot);
  await page.locator('dialog').getByRole('button', { name: action }).click();
}

t.test('the console in Chromium: sign-in, keys, usage', needsChromium, async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.prices as Record<string, unknown>)['modela-5.5'] = { input_per_mtok: 1.25, output_per_mtok: 10 };
  });
  const { page, problems } = await openConsolePage(t, gw.gateway.adminUrl);
  await signIn(t, page, gw);
  const key = await createKey(t, page, gw);
  const id = key.slice(0, 11);

  const answer = await chatWith(gw, key);
  t.ok(answer.choices[0]?.message, 'the new key works with the openai client');
  await chatWith(gw, gw.key, OTHER_MODEL);
  await callOtherEndpoints(t, gw);
  // Two video tasks run while the usage views are checked. The one that succeeds is running for two
  // seconds, so a poll sees it running (its history is checked) however late a loaded machine polls.
  const submitted = Promise.all(
    ['task_ms=2000 queue_ms=0', 'task_ms=200 fail'].map(async (directives) => {
      const answer = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', directives));
      return String(answer.body.id);
    }),
  );
  await usage(t, page, id);
  await usageByEndpoint(t, page, 2);
  // The spend figures below are compared with the records listed, so the tasks' bills land first.
  const [done, failed] = await submitted;
  for (const task of [done!, failed!]) await untilFinished(gw, 'generic', task);
  await eventually(async () => (await gw.gateway.tasks.get(done!))?.billed === true);
  await savedByCache(t, page, gw);
  await batchSpend(t, page, gw);
  await tasks(t, page, done!, failed!);

  await page.getByRole('link', { name: 'Keys' }).click();
  const used = await row(page, id).innerText();
  t.notMatch(used, /never/, 'the key shows when it was last used');
  t.match(used, /5\.00 \/ month\s+0\.000\d+\s/, 'and what it spent of its budget this month');
  await shot(page, '09-keys-used');
  await row(page, id).getByRole('button', { name: 'Edit' }).click();
  t.equal(await page.getByLabel('Guardrails').inputValue(), 'pii-mask, no.secrets', 'the edit shows them');
  t.equal(await page.getByLabel('Allowed tools').inputValue(), 'demo__add, search__*', 'and the tools');
  await page.getByLabel('Description').fill('browser test, edited');
  await page.getByLabel('Guardrails').fill('strict');
  await page.getByLabel('Allowed tools').fill('*__read');
  await page.getByRole('button', { name: 'Save' }).click();
  await row(page, id).filter({ hasText: 'browser test, edited' }).waitFor();
  t.pass('the description is edited');
  t.match(
    await row(page, id).innerText(),
    /modela-5\.5\s+\*__read\s+strict\s/,
    'the row shows the new tools and guardrails',
  );
  t.strictSame((await keyRecord(gw, id)).guardrails, ['strict'], 'and they are saved');
  t.strictSame((await keyRecord(gw, id)).allowed_tools, ['*__read'], 'both of them');
  t.ok(
    await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    'every column of the keys table fits a 1280 px window: the page does not scroll sideways',
  );
  await shot(page, '10-edited');

  await row(page, id).getByRole('button', { name: 'Rotate' }).click();
  await page.getByLabel('Grace period (minutes)').fill('30');
  await page.locator('dialog').getByRole('button', { name: 'Rotate' }).click();
  const replacement = await page.getByRole('textbox', { name: 'New key', exact: true }).inputValue();
  t.match(replacement, /^sk-/, 'rotation shows the new key once');
  t.match(await page.locator('dialog').innerText(), new RegExp(`replaces ${id}`));
  await shot(page, '11-rotated');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  t.match(await row(page, replacement.slice(0, 11)).innerText(), /browser test, edited/, 'same settings');
  t.strictSame((await keyRecord(gw, replacement.slice(0, 11))).guardrails, ['strict'], 'guardrails too');
  t.strictSame((await keyRecord(gw, replacement.slice(0, 11))).allowed_tools, ['*__read'], 'and tools');
  t.ok((await chatWith(gw, replacement)).choices[0], 'the replacement works');

  await confirmAction(page, id, 'Disable', '12-disable-confirm');
  await row(page, id).locator('.status.disabled').waitFor();
  t.equal(
    await row(page, id).getByRole('button', { name: 'Enable' }).count(),
    1,
    'shown disabled, with Enable',
  );
  await shot(page, '13-disabled');
  const refused = await chatWith(gw, key).then(
    () => 0,
    (e: unknown) => (e instanceof OpenAI.APIError ? Number(e.status ?? -1) : -1),
  );
  t.equal(refused, 403, 'the disabled key gets 403 from the gateway');

  await confirmAction(page, id, 'Delete', '14-delete-confirm');
  await row(page, id).waitFor({ state: 'detached' });
  t.pass('the deleted key leaves the table');
  await shot(page, '15-deleted');

  // The page's own code runs in the browser, so it is given as text (this project is compiled for Node).
  await page.evaluate("sessionStorage.setItem('gateway-admin-token', 'stale-token')");
  await page.reload();
  await page.getByLabel('Admin token').waitFor();
  t.pass('a 401 returns to sign-in');
  t.strictSame(problems, [], 'no script errors or CSP violations in the page');
});
