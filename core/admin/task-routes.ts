/**
 * The video task side of the admin API, for the console's task list and detail:
 *   GET /admin/tasks?limit=1..500(50)&cursor=&status=&key_id=&team_id=&model=   newest first → {data, next_cursor}
 *   GET /admin/tasks/:id                                                      one task, with its status history
 */
import { Errors } from '../base/errors';
import { checkParams, pageLimit } from './page-params';
import type { TaskPageQuery, TaskStore } from '../stores/task-store';
import { TASK_STATUSES, type TaskStatus, type VideoTask } from '../stores/video-task';
import { taskDetail, taskView } from './task-view';
import type { Page, TaskDetail, TaskView } from './wire';

const PAGE_PARAMS = ['limit', 'cursor', 'status', 'key_id', 'team_id', 'model'];
const DEFAULT_LIMIT = 50;
const MAX_FILTER = 200;
const STATUS_LIST = TASK_STATUSES.map((s) => `'${s}'`).join(', ');

/** The cursor is opaque to clients: base64url of `created_at:id` of the last task of the page. */
const cursorOf = (task: Pick<VideoTask, 'created_at' | 'id'>): string =>
  Buffer.from(`${task.created_at}:${task.id}`).toString('base64url');

function parseCursor(text: string): TaskPageQuery['after'] {
  const match = /^(\d{1,15}):(.{1,300})$/s.exec(Buffer.from(text, 'base64url').toString('utf8'));
  const after = match && { created_at: Number(match[1]), id: match[2]! };
  // Only a cursor this API made reads back to itself: anything else is refused, never half-understood.
  if (!after || cursorOf(after) !== text) {
    throw Errors.invalidQuery('cursor', 'the next_cursor of the previous page');
  }
  return after;
}

/** The query of a task page, checked as the key listing checks its own: one of each known parameter. */
function pageQuery(search: URLSearchParams): TaskPageQuery {
  checkParams(search, PAGE_PARAMS);
  const limit = pageLimit(search, DEFAULT_LIMIT);
  const status = search.get('status');
  if (status !== null && !TASK_STATUSES.includes(status as TaskStatus)) {
    throw Errors.invalidQuery('status', `one of ${STATUS_LIST}`);
  }
  const filter = (name: 'key_id' | 'team_id' | 'model'): { [k in typeof name]?: string } => {
    const value = search.get(name);
    if (value === null) return {};
    if (value.length === 0 || value.length > MAX_FILTER) {
      throw Errors.invalidQuery(name, `1 to ${MAX_FILTER} characters`);
    }
    return { [name]: value };
  };
  const cursor = search.get('cursor');
  return {
    limit,
    ...(cursor !== null ? { after: parseCursor(cursor) } : {}),
    ...(status !== null ? { status: status as TaskStatus } : {}),
    ...filter('key_id'),
    ...filter('team_id'),
    ...filter('model'),
  };
}

export async function taskPage(store: TaskStore, search: URLSearchParams): Promise<Page<TaskView>> {
  const query = pageQuery(search);
  const tasks = await store.page({ ...query, limit: query.limit + 1 }); // one more tells whether there is a next page
  const data = tasks.slice(0, query.limit);
  return {
    data: data.map(taskView),
    next_cursor: tasks.length > query.limit ? cursorOf(data[data.length - 1]!) : null,
  };
}

export async function taskById(store: TaskStore, id: string): Promise<TaskDetail> {
  const task = await store.get(id);
  if (!task) throw Errors.taskNotFound(id);
  return taskDetail(task);
}
