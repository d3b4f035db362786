/**
 * `generic`: `POST /v1/videos/generations`, `GET /v1/videos/generations/{id}`, for every video model.
 * Jobs in the shape of OpenAI's video API: `object: "video.generation.job"`, status `queued`,
 * `in_progress`, `completed`, `failed`, `cancelled`; a completed job lists its video under `data`.
 */
import { randomBytes } from 'node:crypto';
import { defineTaskProtocol } from '../../core/kit/task';
import { unixSeconds } from '../apis/videos';

const OBJECT = 'video.generation.job';

export const GenericVideoProtocol = defineTaskProtocol('generic', {
  defaultModels: ['*'],
  submitPath: '/v1/videos/generations',
  queryPath: '/v1/videos/generations/:id',
  words: {
    queued: 'queued',
    running: 'in_progress',
    succeeded: 'completed',
    failed: 'failed',
    cancelled: 'cancelled',
  },

  /** 144 random bits. */
  newTaskId() {
    return `video_${randomBytes(18).toString('base64url')}`;
  },

  submitted(task) {
    return {
      id: task.id,
      object: OBJECT,
      status: this.words.queued,
      model: task.model,
      created_at: unixSeconds(task.created_at),
    };
  },

  queried(task) {
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
  },
});
