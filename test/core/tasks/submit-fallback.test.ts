/**
 * Video submits on a route with a fallback: moved to the fallback only when the first upstream provably
 * created nothing (connection refused, 429), never after a 5xx (it may have created a paid task).
 */
import t, { type Test } from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { refusedUrl } from '../../helpers/ports';
import { submitVideo, untilFinished, videoBody } from '../../plugins/video-helpers';

const MODEL = 'videoa-1.1-t2v';

async function gatewayWithFallback(t: Test, primaryUrl?: string) {
  return startTestGateway(t, (doc, sim) => {
    const upstreams = doc.upstreams as Record<string, Record<string, unknown>>;
    upstreams['videoa-primary'] = {
      ...upstreams['videoa-main'],
      base_url: primaryUrl ?? `${sim.url}/videoa`,
    };
    doc.routes = {
      [MODEL]: { targets: [{ upstream: 'videoa-primary' }], fallbacks: [{ upstream: 'videoa-main' }] },
    };
  });
}

const submits = (gw: { sim: { log: { list(): { method: string; path: string }[] } } }): number =>
  gw.sim.log.list().filter((r) => r.method === 'POST' && r.path.includes('video-synthesis')).length;

t.test(
  'connection refused: the task is submitted to, polled on and recorded against the fallback',
  async (t) => {
    const gw = await gatewayWithFallback(t, refusedUrl('/videoa'));
    const res = await submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=100'));
    t.equal(res.status, 200);
    const id = String(res.body.id);
    t.equal((await gw.gateway.tasks.get(id))?.upstream, 'videoa-main');
    t.equal((await untilFinished(gw, 'generic', id)).body.status, 'completed');
  },
);

t.test('429: moved to the fallback; 503: answered as it came, not retried', async (t) => {
  const gw = await gatewayWithFallback(t);
  gw.sim.faults.add({ fault: { status: 429 }, times: 1 });
  const moved = await submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=100'));
  t.equal(moved.status, 200);
  t.equal(submits(gw), 2, 'the 429 and the fallback submit');
  t.equal((await gw.gateway.tasks.get(String(moved.body.id)))?.upstream, 'videoa-main');
  gw.sim.faults.add({ fault: { status: 503 }, times: 1 });
  const refused = await submitVideo(gw, 'generic', videoBody(MODEL, 'task_ms=100'));
  t.equal(refused.status, 503);
  t.equal(submits(gw), 3, 'one submit only after a 5xx');
});
