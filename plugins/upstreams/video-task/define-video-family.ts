import { inject } from 'tsyringe';
import type { constructor } from 'tsyringe/dist/typings/types';
import { definePlugin } from '../../../core/kit/plugin';
import { type UpstreamPlugin } from '../../../core/kit/upstream';
import { type UpstreamCaller, UpstreamCallerToken } from '../../../core/kit/vendor-calls';
import { videoOptions, type VideoOptions, type VideoPaths } from './video-options';
import { VideoUpstream, type VideoFamilySpec } from './video-upstream';

/** Registers a video family under `name`: its spec, and the default paths of its vendor's task API. */
export function defineVideoFamily(
  name: string,
  spec: VideoFamilySpec,
  paths: VideoPaths,
): constructor<UpstreamPlugin> {
  @definePlugin({ kind: 'upstream', name, options: videoOptions(paths) })
  class VideoFamilyUpstream extends VideoUpstream {
    constructor(options: VideoOptions, @inject(UpstreamCallerToken) upstream: UpstreamCaller) {
      super(spec, options, upstream);
    }
  }
  return VideoFamilyUpstream;
}
