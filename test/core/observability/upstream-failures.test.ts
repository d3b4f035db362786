/**
 * An upstream failure is logged once, at warn, with its cause: a chat call answered 502
 * `upstream_unreachable` (before, it left no line at all), an upstream's 503, and a video submit to an
 * unreachable upstream (before, logged at error by the error boundary; now once, like the others).
 */
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';
import { LEVEL, recordingLogger, type LogLine } from '../../helpers/logs';
import { refusedUrl } from '../../helpers/ports';
import { submitVideo, videoBody } from '../../plugins/video-helpers';

const chat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }] };

const about = (lines: readonly LogLine[], id: string): LogLine[] =>
  lines.filter((l) => l.request_id === id && l.msg !== 'request');

void t.test('every upstream failure: one warn line with its cause', async (t) => {
  const closed = refusedUrl();
  const { logger, lines } = recordingLogger('info');
  const gw = await startTestGateway(
    t,
    (doc) => {
      const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
      upstreams['modela-main']!.base_url = `${closed}/modela/v1`;
      upstreams['videoa-main']!.base_url = `${closed}/videoa`;
    },
    { logger },
  );

  t.test('a chat call to an unreachable upstream', async (t) => {
    const res = await postJson(`${gw.url}/v1/chat/completions`, chat, gw.key, { 'x-request-id': 'down-1' });
    t.equal(res.status, 502);
    t.equal((res.body.error as Record<string, unknown>).code, 'upstream_unreachable');
    const mine = about(lines, 'down-1');
    t.equal(mine.length, 1, 'one line besides the access line');
    t.match(mine[0], {
      level: LEVEL.warn,
      msg: 'upstream failed',
      upstream: 'modela-main',
      reason: 'upstream_unreachable',
      code: 'ECONNREFUSED',
      cause: /ECONNREFUSED/,
    });
    t.match(
      lines.filter((l) => l.request_id === 'down-1' && l.msg === 'request'),
      [{ status: 502, code: 'upstream_unreachable', upstream: 'modela-main' }],
    );
  });

  t.test('an upstream answering 503', async (t) => {
    const res = await postJson(
      `${gw.url}/v1/chat/completions`,
      { ...chat, model: 'modelc-3.6-plus' },
      gw.key,
      {
        'x-request-id': 'busy-1',
        'x-sim-status': '503',
      },
    );
    t.equal(res.status, 503, "the upstream's answer, passed on");
    const mine = about(lines, 'busy-1');
    t.equal(mine.length, 1);
    t.match(mine[0], { level: LEVEL.warn, upstream: 'modelc-main', reason: 'http_503', status: 503 });
  });

  t.test('a video submit to an unreachable upstream', async (t) => {
    const res = await submitVideo(gw, 'generic', videoBody('videoa-1.1-t2v'), { 'x-request-id': 'down-2' });
    t.equal(res.status, 502);
    const mine = about(lines, 'down-2');
    t.equal(mine.length, 1, 'logged once, not again by the error boundary');
    t.match(mine[0], { level: LEVEL.warn, upstream: 'videoa-main', code: 'ECONNREFUSED' });
  });

  t.test('nothing at error level', (t) => {
    t.notOk(lines.some((l) => l.level >= LEVEL.error));
    t.end();
  });
});
