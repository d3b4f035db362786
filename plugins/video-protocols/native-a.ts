/**
 * `native-a`: the videoa vendor's own async task API (UPSTREAMS.md §3b), for `videoa-*`. Submit needs
 * `X-nativea-Async: enable` (the vendor has no synchronous mode over HTTP); answers carry `output` with
 * `task_status` PENDING, RUNNING, SUCCEEDED, FAILED or CANCELED, a failure's `code`/`message` flat inside
 * `output`, and a `request_id`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../../core/context';
import { Errors } from '../../core/errors';
import { definePlugin } from '../../core/define-plugin';
import { protocolOptions, type ProtocolOptions, type TaskProtocol } from '../../core/tasks/protocol';
import type { TaskStatus, VideoTask } from '../../core/tasks/task';

const ASYNC_HEADER = 'x-nativea-async';

/** The vendor's time format, `2025-07-27 21:05:15.212` (here in UTC). */
const vendorTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

@definePlugin({ kind: 'task-protocol', name: 'native-a', options: protocolOptions(['videoa-*']) })
export class NativeAVideoProtocol implements TaskProtocol {
  readonly submitPath = '/api/v1/services/aigc/video-generation/video-synthesis';
  readonly queryPath = '/api/v1/tasks/:id';
  readonly words: Readonly<Record<TaskStatus, string>> = {
    queued: 'PENDING',
    running: 'RUNNING',
    succeeded: 'SUCCEEDED',
    failed: 'FAILED',
    cancelled: 'CANCELED',
  };
  readonly models: readonly string[];

  constructor(options: ProtocolOptions) {
    this.models = options.models;
  }

  checkSubmit(headers: IncomingHttpHeaders): void {
    if (headers[ASYNC_HEADER] !== 'enable') throw Errors.synchronousNotSupported('X-nativea-Async', 'enable');
  }

  /** A v4 UUID, as the vendor's task ids are: 122 random bits. */
  newTaskId(): string {
    return randomUUID();
  }

  submitted(task: VideoTask, requestId: string): JsonObject {
    return { output: { task_id: task.id, task_status: this.words.queued }, request_id: requestId };
  }

  queried(task: VideoTask, requestId: string): JsonObject {
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
  }
}
