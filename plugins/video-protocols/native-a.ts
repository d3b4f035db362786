/**
 * `native-a`: the videoa vendor's own async task API (docs/upstreams.md#videoa), for `videoa-*`. Submit needs
 * `X-nativea-Async: enable` (the vendor has no synchronous mode over HTTP); answers carry `output` with
 * `task_status` PENDING, RUNNING, SUCCEEDED, FAILED or CANCELED, a failure's `code`/`message` flat inside
 * `output`, and a `request_id`.
 */
import { randomUUID } from 'node:crypto';
import { defineTaskProtocol } from '../../core/kit/task';
import { Errors } from '../../core/kit/plugin';

const ASYNC_HEADER = 'x-nativea-async';

/** The vendor's time format, `2025-07-27 21:05:15.212` (here in UTC). */
const vendorTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

export const NativeAVideoProtocol = defineTaskProtocol('native-a', {
  defaultModels: ['videoa-*'],
  submitPath: '/api/v1/services/aigc/video-generation/video-synthesis',
  queryPath: '/api/v1/tasks/:id',
  words: {
    queued: 'PENDING',
    running: 'RUNNING',
    succeeded: 'SUCCEEDED',
    failed: 'FAILED',
    cancelled: 'CANCELED',
  },

  checkSubmit(headers) {
    if (headers[ASYNC_HEADER] !== 'enable') throw Errors.synchronousNotSupported('X-nativea-Async', 'enable');
  },

  /** A v4 UUID, as the vendor's task ids are: 122 random bits. */
  newTaskId() {
    return randomUUID();
  },

  submitted(task, requestId) {
    return { output: { task_id: task.id, task_status: this.words.queued }, request_id: requestId };
  },

  queried(task, requestId) {
    const succeeded = task.status === 'succeeded';
    const seconds = task.usage?.video_seconds ?? task.params.duration_s;
    return {
      request_id: requestId,
      output: {
        task_id: task.id,
        task_status: this.words[task.status],
        submit_time: vendorTime(task.created_at),
        ...(task.finished_at !== null ? { end_time: vendorTime(task.finished_at) } : {}),
        ...(succeeded && task.video_url ? { video_url: task.video_url } : {}),
        ...(task.error ? { code: task.error.code, message: task.error.message } : {}),
      },
      ...(succeeded ? { usage: { video_duration: seconds, video_count: 1 } } : {}),
    };
  },
});
