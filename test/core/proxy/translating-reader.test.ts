/**
 * A family that translates owes its client the client's API whatever the pipeline and whatever the
 * vendor sent: with the sse-relay stage left out, its stream is still translated event by event (where
 * another family's is piped through untouched); a 2xx body it cannot read is a 502, never the vendor's
 * bytes; and a body carrying a top-level `usage` is translated too (no reader shortcut passes it on).
 * The family is `modelf` (test/fixtures/plugins/modelf), answered by the simulator with Cohere's bodies.
 */
import 'reflect-metadata';
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import '../../fixtures/plugins/modelf';
import { startTestGateway, withoutStage, type TestGateway } from '../../helpers/gateway';
import { parseSse, postJson } from '../../helpers/http';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'modelf');
const recording = (file: string) => readFileSync(join(FIXTURES, file), 'utf8');

const MODEL = 'modelf-command-a';
const hi = { model: MODEL, messages: [{ role: 'user', content: 'hi' }] };

async function modelfGateway(t: Test, withRelay: boolean): Promise<TestGateway> {
  return startTestGateway(t, (doc, sim) => {
    doc.upstreams = { 'modelf-main': { plugin: 'modelf', base_url: `${sim.url}/cohere`, api_key: 'k' } };
    if (!withRelay) {
      withoutStage(doc, 'sse-relay');
    }
  });
}

const vendorSends = (gw: TestGateway, contentType: string, body: string) => {
  gw.sim.faults.clear();
  gw.sim.faults.add({
    match: { path_prefix: '/cohere/' },
    fault: { reply: { status: 200, content_type: contentType, body } },
  });
};

void t.test('without the sse-relay stage, a translating family’s stream is still translated', async (t) => {
  const gw = await modelfGateway(t, false);
  vendorSends(gw, 'text/event-stream', recording('stream.sse'));
  const res = await postJson(`${gw.url}/v1/chat/completions`, { ...hi, stream: true }, gw.key);
  t.equal(res.status, 200);
  const events = parseSse(res.text);
  t.notOk(
    events.some((ev) => ev.event !== undefined && ev.event !== 'message'),
    'none of the vendor’s typed events',
  );
  t.equal(events.at(-1)?.data, '[DONE]', 'ends with the client API’s end marker');
  const chunks = events
    .slice(0, -1)
    .map((ev) => JSON.parse(ev.data) as { object: string; choices: unknown[] });
  t.ok(
    chunks.every((c) => c.object === 'chat.completion.chunk'),
    'every event a chat completion chunk',
  );
  t.match(chunks.at(-1), { choices: [{ finish_reason: 'stop' }] }, "the vendor's finish reason, translated");
});

void t.test('a translating family’s answers, JSON', async (t) => {
  const gw = await modelfGateway(t, true);

  await t.test('a body with a top-level usage is translated whole', async (t) => {
    vendorSends(gw, 'application/json', recording('json.json'));
    const res = await postJson(`${gw.url}/v1/chat/completions`, hi, gw.key);
    t.equal(res.status, 200);
    t.match(JSON.parse(res.text), {
      object: 'chat.completion',
      usage: { prompt_tokens: 12, completion_tokens: 7 },
    });
    t.notMatch(res.text, /billed_units/, "none of the vendor's members");
  });

  await t.test('a 2xx body it cannot read is a 502, not the vendor’s bytes', async (t) => {
    vendorSends(gw, 'text/plain', 'maintenance window: back at 10:00');
    const res = await postJson(`${gw.url}/v1/chat/completions`, hi, gw.key);
    t.equal(res.status, 502);
    t.match(JSON.parse(res.text), {
      error: {
        code: 'upstream_error',
        message: /modelf-main sent a body that is not a JSON object/,
        type: 'error',
      },
    });
  });
});
