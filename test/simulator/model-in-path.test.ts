/**
 * A vendor that names the model in the path, as Gemini's native API does
 * (`POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`): the simulator routes the
 * segment by its `:verb` and hands the handler the model, and a fault set over `/_sim/faults` matches
 * that model, not the body's. Over real HTTP, with a family of the test's own beside the shipped ones.
 */
import t from 'tap';
import { families } from '../../simulator/families';
import type { Family } from '../../simulator/family';
import { startSimulator } from '../../simulator/server';
import { chat, user } from './helpers';

const KEY = 'sim-pathmodel-key';

/** Answers which route took the request, for which model, with which body. */
const answer =
  (verb: string): Family['routes'][string] =>
  (ex) =>
    ex.sendJson(200, { verb, model: ex.params.model, body: ex.body });

/** Gemini's shape, reduced to what routing and faults read: its paths, its key header, its error body. */
const pathModel: Family = {
  name: 'pathmodel',
  mount: '/pathmodel',
  defaultKey: KEY,
  requestIdHeader: 'x-request-id',
  routes: {
    'POST /v1beta/models/:model:generateContent': answer('generateContent'),
    'POST /v1beta/models/:model:streamGenerateContent': answer('streamGenerateContent'),
  },
  authorized: (headers, key) => headers['x-goog-api-key'] === key,
  errorBody: (err) => ({ error: { code: err.status, message: err.message, status: 'ERROR' } }),
};

/** POSTs to the family's `model:verb`, with its key; `body` as given (Gemini's names no model). */
const generate = (url: string, segment: string, body: unknown = { contents: [] }): Promise<Response> =>
  fetch(`${url}/pathmodel/v1beta/models/${segment}`, {
    method: 'POST',
    headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** POSTs a fault over HTTP, as a test in another process would. */
async function addFault(url: string, spec: unknown): Promise<void> {
  const res = await fetch(`${url}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  if (res.status !== 200) throw new Error(`fault refused: ${await res.text()}`);
}

void t.test('the model in a path segment', async (t) => {
  const sim = await startSimulator({ families: [...families, pathModel] });
  t.teardown(() => sim.close());
  t.afterEach(() => void sim.faults.clear());

  await t.test('each verb reaches its route, with the model from the path', async (t) => {
    for (const verb of ['generateContent', 'streamGenerateContent']) {
      const res = await generate(sim.url, `gemini-2.5-flash:${verb}`);
      t.equal(res.status, 200, verb);
      t.strictSame(await res.json(), { verb, model: 'gemini-2.5-flash', body: { contents: [] } });
    }
    const escaped = await generate(sim.url, 'tunedModels%2Fmy%20model:generateContent');
    t.match(await escaped.json(), { model: 'tunedModels/my model' }, 'the model percent-decoded');
  });

  await t.test("a verb the family has no route for is the family's 404", async (t) => {
    for (const segment of ['gemini-2.5-flash:countTokens', 'gemini-2.5-flash', ':generateContent']) {
      const res = await generate(sim.url, segment);
      t.equal(res.status, 404, segment);
      t.match(await res.json(), { error: { code: 404, message: /Invalid URL/ } });
    }
  });

  await t.test("a fault matches the path's model, whatever the body names", async (t) => {
    await addFault(sim.url, { match: { model: 'gemini-2.5-pro' }, fault: { status: 503 }, times: 2 });
    const other = await generate(sim.url, 'gemini-2.5-flash:generateContent', { model: 'gemini-2.5-pro' });
    t.equal(other.status, 200, "the body's model is not the request's");
    const faulted = await generate(sim.url, 'gemini-2.5-pro:streamGenerateContent');
    t.equal(faulted.status, 503, 'the model in the path, with no model in the body');
    t.match(await faulted.json(), { error: { code: 503 } }, "in the family's error shape");
    const again = await generate(sim.url, 'gemini-2.5-pro:generateContent', { model: 'other' });
    t.equal(again.status, 503, 'the path wins over a body that names another');
    t.strictSame(sim.faults.all(), [], 'spent after two');
    t.equal((await generate(sim.url, 'gemini-2.5-pro:generateContent')).status, 200, 'then it answers');
  });

  await t.test("a canned reply, matched on the path's model and prefix", async (t) => {
    await addFault(sim.url, {
      match: { path_prefix: '/pathmodel/', model: 'gemini-2.5-flash' },
      fault: { reply: { status: 429, body: '{"canned":true}' } },
    });
    const res = await generate(sim.url, 'gemini-2.5-flash:generateContent');
    t.equal(res.status, 429);
    t.strictSame(await res.json(), { canned: true });
    t.equal((await generate(sim.url, 'gemini-2.5-pro:generateContent')).status, 200, 'another model');
  });

  await t.test("a route without a model in its path still matches the body's", async (t) => {
    await addFault(sim.url, { match: { model: 'gemini-2.5-flash' }, fault: { status: 500 } });
    const res = await chat(sim, 'modela', { model: 'gemini-2.5-flash', messages: user('hi') });
    t.equal(res.status, 500);
    const other = await chat(sim, 'modela', { model: 'modela-5.5', messages: user('hi') });
    t.equal(other.status, 200);
  });
});
