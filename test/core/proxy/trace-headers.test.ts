/**
 * What reaches the upstream of a request's identity: the gateway's `x-request-id` (the client's when
 * sane) on proxied calls and on video submits and polls, and the client's W3C trace context when valid.
 */
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { eventually } from '../../helpers/wait';
import { submitVideo, videoBody } from '../../plugins/video-helpers';

const chat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

void t.test('request id and trace context upstream', async (t) => {
  const gw = await startTestGateway(t);
  const url = `${gw.url}/v1/chat/completions`;
  const upstreamHeaders = (id: string) => {
    const seen = gw.sim.log.list(id);
    t.equal(seen.length, 1, `${id}: one upstream request`);
    return seen[0]!.headers;
  };

  t.test('a generated id reaches the upstream too', async (t) => {
    const res = await postJson(url, chat, gw.key);
    const id = res.headers.get('x-request-id')!;
    t.match(id, /^[0-9a-f-]{36}$/);
    t.equal(upstreamHeaders(id)['x-request-id'], id);
  });

  t.test('a valid traceparent and its tracestate pass unchanged', async (t) => {
    await postJson(url, chat, gw.key, {
      'x-request-id': 'trace-ok',
      traceparent: TRACEPARENT,
      tracestate: 'vendor=abc,other=1',
    });
    const headers = upstreamHeaders('trace-ok');
    t.equal(headers.traceparent, TRACEPARENT);
    t.equal(headers.tracestate, 'vendor=abc,other=1');
  });

  for (const [name, bad] of [
    ['upper-case hex', TRACEPARENT.toUpperCase()],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['a short parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa-01'],
    ['another version', TRACEPARENT.replace(/^00/, 'ff')],
    ['garbage', 'hello'],
  ] as const) {
    t.test(`an invalid traceparent (${name}) is dropped, with its tracestate`, async (t) => {
      const id = `trace-bad-${name.replace(/\W+/g, '-')}`;
      const res = await postJson(url, chat, gw.key, {
        'x-request-id': id,
        traceparent: bad,
        tracestate: 'v=1',
      });
      t.equal(res.status, 200, 'the request is served');
      const headers = upstreamHeaders(id);
      t.notOk('traceparent' in headers);
      t.notOk('tracestate' in headers);
    });
  }

  t.test('a video submit and its polls carry the submit request id', async (t) => {
    const res = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v', 'task_ms=150'), {
      'x-request-id': 'video-1',
    });
    t.equal(res.status, 200);
    const id = String(res.body.id);
    await eventually(async () => (await gw.gateway.tasks.get(id))?.status === 'succeeded', 10_000);
    const seen = gw.sim.log.list('video-1');
    t.equal(seen.filter((r) => r.method === 'POST').length, 1, 'the submit');
    t.ok(seen.filter((r) => r.method === 'GET').length >= 1, 'the polls');
  });
});
