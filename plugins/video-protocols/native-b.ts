/**
 * `native-b`: the videob vendor's content-generation task API (docs/upstreams.md#videob), for `videob-*`. Status
 * words `queued`, `running`, `succeeded`, `failed`, `cancelled`; the video under `content.video_url`;
 * times in Unix seconds; `error` null unless the task failed.
 */
import { randomBytes } from 'node:crypto';
import { defineTaskProtocol } from '../../core/kit/task';
import { unixSeconds } from '../apis/videos';

/** `20250622134237`: the vendor's ids carry their creation time. */
const stamp = (ms: number): string => new Date(ms).toISOString().replace(/\D/g, '').slice(0, 14);

export const NativeBVideoProtocol = defineTaskProtocol('native-b', {
  defaultModels: ['videob-*'],
  submitPath: '/api/v3/contents/generations/tasks',
  queryPath: '/api/v3/contents/generations/tasks/:id',
  words: {
    queued: 'queued',
    running: 'running',
    succeeded: 'succeeded',
    failed: 'failed',
    cancelled: 'cancelled',
  },

  /** The vendor's `cgt-<time>-<suffix>`, with 120 random bits in the suffix. */
  newTaskId() {
    return `cgt-${stamp(Date.now())}-${randomBytes(15).toString('hex')}`;
  },

  /** The contract's submit answer: the task and the word `submitted`. */
  submitted(task) {
    return { id: task.id, status: 'submitted' };
  },

  queried(task) {
    const succeeded = task.status === 'succeeded';
    const tokens = task.usage?.tokens;
    return {
      id: task.id,
      model: task.model,
      status: this.words[task.status],
      ...(succeeded && task.video_url ? { content: { video_url: task.video_url } } : {}),
      ...(succeeded && tokens !== undefined
        ? { usage: { completion_tokens: tokens, total_tokens: tokens } }
        : {}),
      error: task.error,
      created_at: unixSeconds(task.created_at),
      updated_at: unixSeconds(task.updated_at),
      ...(task.params.resolution ? { resolution: task.params.resolution } : {}),
      ...(task.params.duration_s !== undefined ? { duration: task.params.duration_s } : {}),
    };
  },
});
