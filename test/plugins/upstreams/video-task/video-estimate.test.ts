/**
 * What a video submit holds against a key's budget (TaskUpstream.estimate): the duration and resolution
 * asked, else the model's ceilings; for a family billed in tokens, the tokens the vendor bills for it.
 */
import 'reflect-metadata';
import { Agent } from 'node:http';
import t from 'tap';
import type { ModelSpec } from '../../../../core/contracts/api';
import { Pricing } from '../../../../core/billing/pricing';
import { UpstreamCaller } from '../../../../core/upstream/upstream-call';
import { VIDEOA, VIDEOA_PATHS } from '../../../../plugins/upstreams/videoa';
import { VIDEOB, VIDEOB_PATHS } from '../../../../plugins/upstreams/videob';
import { videoOptions } from '../../../../plugins/upstreams/video-task/video-options';
import { VideoUpstream, type VideoFamilySpec } from '../../../../plugins/upstreams/video-task/video-upstream';
import type { VideoPaths } from '../../../../plugins/upstreams/video-task/video-options';

function upstream(spec: VideoFamilySpec, paths: VideoPaths, plugin: string): VideoUpstream {
  const options = videoOptions(paths).parse({ plugin, base_url: 'http://127.0.0.1:1', api_key: 'k' });
  const caller = new UpstreamCaller(`${plugin}-main`, new Agent(), { connectMs: 1_000, responseMs: 1_000 });
  return new VideoUpstream(spec, options, caller);
}

const specOf = (u: VideoUpstream, id: string): ModelSpec => u.models.find((m) => m.id === id)!;

t.test('videoa: what was asked, else the longest and largest video the model allows', (t) => {
  const videoa = upstream(VIDEOA, VIDEOA_PATHS, 'videoa');
  const spec = specOf(videoa, 'videoa-1.1-t2v');
  t.strictSame(videoa.estimate({ duration_s: 5, resolution: '720P' }, spec), {
    video_seconds: 5,
    resolution: '720P',
  });
  t.strictSame(videoa.estimate({}, spec), { video_seconds: 15, resolution: '1080P' });
  const pricing = new Pricing({ 'videoa-1.1-t2v': { per_second: { '720P': 0.1, '1080P': 0.15 } } });
  t.equal(pricing.taskCost(spec.id, {}, videoa.estimate({}, spec)), 2_250_000, '15 s at 1080P: 2.25');
  t.end();
});

t.test('videob: billed in tokens, 24 frames a second at a frame’s pixels / 1,024', (t) => {
  const videob = upstream(VIDEOB, VIDEOB_PATHS, 'videob');
  const spec = specOf(videob, 'videob-2-0-260128');
  t.strictSame(videob.estimate({ duration_s: 5, resolution: '720p' }, spec), {
    video_seconds: 5,
    resolution: '720p',
    tokens: 108_000,
  });
  t.strictSame(videob.estimate({ duration_s: 2, resolution: '1080P' }, spec).tokens, 97_200, 'any case');
  t.strictSame(videob.estimate({}, spec), { video_seconds: 15, resolution: '1080p', tokens: 729_000 });
  const pricing = new Pricing({ 'videob-2-0-260128': { per_million_tokens: 10 } });
  t.equal(
    pricing.taskCost(spec.id, {}, videob.estimate({ duration_s: 5, resolution: '720p' }, spec)),
    1_080_000,
  );
  t.end();
});
