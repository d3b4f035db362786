/**
 * The only form in which the admin API shows a video task: fields are copied by name, so the lease, the
 * idempotency key's body hash and the poller's bookkeeping never reach an answer.
 */
import type { VideoTask } from '../stores/video-task';
import type { TaskDetail, TaskView } from './wire';

const iso = (ms: number): string => new Date(ms).toISOString();

export function taskView(task: VideoTask): TaskView {
  return {
    id: task.id,
    status: task.status,
    model: task.model,
    key_id: task.key_id,
    ...(task.team_id !== undefined ? { team_id: task.team_id } : {}),
    protocol: task.protocol,
    upstream: task.upstream,
    upstream_task_id: task.upstream_task_id,
    created_at: iso(task.created_at),
    finished_at: task.finished_at === null ? null : iso(task.finished_at),
    cost_micros: task.cost_micros,
    error: task.error && { code: task.error.code, message: task.error.message },
    video_url: task.video_url,
    params: { ...task.params },
    usage: task.usage && { ...task.usage },
    polls: task.polls,
    request_id: task.request_id,
  };
}

export function taskDetail(task: VideoTask): TaskDetail {
  return { ...taskView(task), history: task.history.map((h) => ({ status: h.status, at: iso(h.at) })) };
}
