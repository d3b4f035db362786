/**
 * The video generation API: asynchronous tasks. Its models are routed like any other, but its endpoints
 * come from the task protocol plugins (plugins/video-protocols/), one submit and one query route each.
 */
import type { ModelApi } from '../../core/kit/upstream';
import { jsonOnlyApi } from './json-only-api';

export const VideoApi: ModelApi = jsonOnlyApi({
  id: 'video',
  path: '/v1/videos/generations',
  kind: 'task',
  // Each protocol's native body holds its prompt in its own place: no content is recorded.
  genAi: { operation: 'generate_content' },
});

/** Unix seconds, as the generic and native-b answers give times. */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
