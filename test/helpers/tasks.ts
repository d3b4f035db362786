/** Video tasks as the store holds them, for tests that plant one. */
import { randomUUID } from 'node:crypto';
import { normalizeTask, type VideoTask } from '../../core/stores/video-task';

/**
 * What an instance killed while the upstream held its submit leaves in the store: a queued task with no
 * upstream id, under that instance's submit lease, which expired a second ago. `over` changes any field.
 */
export function deadSubmitTask(over: Partial<VideoTask> = {}): VideoTask {
  const now = Date.now();
  // History and cost as a task stored in that state would have them, unless `over` gives its own.
  return normalizeTask({
    id: `video_dead_${randomUUID()}`,
    key_id: null,
    model: 'videoa-1.1-t2v',
    upstream: 'videoa-main',
    upstream_model: 'videoa-1.1-t2v',
    protocol: 'generic',
    request_id: `crashed-request-${randomUUID()}`,
    params: { resolution: '720P', duration_s: 5 },
    upstream_task_id: null,
    status: 'queued',
    video_url: null,
    error: null,
    usage: null,
    created_at: now - 5_000,
    updated_at: now - 5_000,
    finished_at: null,
    deadline_at: now + 60_000,
    next_poll_at: now - 5_000,
    polls: 0,
    poll_errors: 0,
    lease: { owner: 'dead-instance/submit', until: now - 1_000 },
    billed: false,
    idempotency: null,
    ...over,
  });
}
