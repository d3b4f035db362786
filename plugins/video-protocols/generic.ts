/**
 * `generic`: `POST /v1/videos/generations`, `GET /v1/videos/generations/{id}`, for every video model.
 * Jobs in the shape of OpenAI's video API: `object: "video.generation.job"`, status `queued`,
 * `in_progress`, `completed`, `failed`, `cancelled`; a completed job lists its video under `data`.
 */
import { randomBytes } from 'node:crypto';
import type { JsonObject } from '../../core/context';
import { definePlugin } from '../../core/define-plugin';
import { protocolOptions, type ProtocolOptions, type TaskProtocol } from '../../core/tasks/protocol';
import type { TaskStatus, VideoTask } from '../../core/tasks/task';
import { unixSeconds } from '../apis/videos';

const OBJECT = 'video.generation.job';

@definePlugin({ kind: 'task-protocol', name: 'generic', options: protocolOptions(['*']) })
export class GenericVideoProtocol implements TaskProtocol {
  readonly submitPath = '/v1/videos/generations';
  readonly queryPath = '/v1/videos/generations/:id';
  readonly words: Readonly<Record<TaskStatus, string>> = {
    queued: 'queued',
    running: 'in_progress',
    succeeded: 'completed',
    failed: 'failed',
    cancelled: 'cancelled',
  };
  readonly models: readonly string[];

  constructor(options: ProtocolOptions) {
    this.models = options.models;
  }

  checkSubmit(): void {}

  /** 144 random bits. */
  newTaskId(): string {
    return `video_${randomBytes(18).toString('base64url')}`;
  }

  submitted(task: VideoTask): JsonObject {
    return {
      id: task.id,
      object: OBJECT,
      status: this.words.queued,
      model: task.model,
      created_at: unixSeconds(task.created_at),
    };
  }

  queried(task: VideoTask): JsonObject {
    return {
      id: task.id,
      object: OBJECT,
      status: this.words[task.status],
      model: task.model,
      created_at: unixSeconds(task.created_at),
      ...(task.finished_at !== null ? { completed_at: unixSeconds(task.finished_at) } : {}),
      data: task.status === 'succeeded' && task.video_url ? [{ url: task.video_url }] : [],
      ...(task.error ? { error: task.error } : {}),
    };
  }
}
