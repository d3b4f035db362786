import type { BatchRegistry } from './batch-registry';
import type { Faults } from './faults';
import type { McpSessions } from './mcp/sessions';
import type { PromptCache } from './prompt-cache';
import type { RequestLog } from './request-log';
import type { Params } from '../lib/router';
import type { TaskRegistry } from './tasks/registry';
import { VIDEO_BYTES, videoTaskId } from './tasks/video-file';

/** What an inspection endpoint reads: the simulator's state and the request's parameters. */
export interface AdminRequest {
  readonly log: RequestLog;
  readonly tasks: TaskRegistry;
  readonly faults: Faults;
  readonly promptCache: PromptCache;
  readonly batches: BatchRegistry;
  readonly mcp: McpSessions;
  /** The JSON body of a POST, else null. */
  readonly body: unknown;
  readonly query: URLSearchParams;
  /** The values of the route's `:name` path segments, percent-decoded. */
  readonly params: Params;
}

/** An inspection answer: JSON, or raw bytes of a content type. */
export type AdminReply =
  | { readonly status: number; readonly json: unknown }
  | { readonly status: number; readonly bytes: Buffer; readonly contentType: string };

/** An inspection endpoint. */
type AdminHandler = (req: AdminRequest) => AdminReply;

const ok = (json: unknown): AdminReply => ({ status: 200, json });
const notFound = (what: string): AdminReply => ({ status: 404, json: { error: `no ${what}`, status: 404 } });

/** `/_sim/tasks/<id>`: one id the simulator issued or was asked about. */
const oneTask: AdminHandler = ({ tasks, params }) => {
  const view = tasks.get(params.id ?? '');
  return view ? ok(view) : notFound(`task ${params.id}`);
};

/** `/_sim/videos/<id>.mp4`: the video of a task that succeeded; 404 until then. */
const video: AdminHandler = ({ tasks, params }) => {
  const id = videoTaskId(params.file ?? '');
  const task = id === undefined ? undefined : tasks.succeeded(id);
  return task
    ? { status: 200, bytes: VIDEO_BYTES, contentType: 'video/mp4' }
    : notFound(`video ${params.file}`);
};

/**
 * Routes under `/_sim/`, keyed `METHOD /path` (`:name` matches one segment). These requests are
 * not logged and need no key; the video files are what task results point at, as the vendors'
 * signed URLs need no key either.
 */
export const adminRoutes: Readonly<Record<string, AdminHandler>> = {
  'GET /_sim/health': () => ok({ ok: true }),
  'GET /_sim/requests': ({ log, query }) => ok({ requests: log.list(query.get('request_id')) }),
  'DELETE /_sim/requests': ({ log }) => ok({ ok: true, cleared: log.clear() }),
  'GET /_sim/tasks': ({ tasks, query }) => ok(tasks.list(query.get('family'))),
  'DELETE /_sim/tasks': ({ tasks }) => ok({ ok: true, cleared: tasks.clear() }),
  'GET /_sim/tasks/stats': ({ tasks, query }) => {
    const family = query.get('family');
    return ok(family === null ? tasks.stats() : tasks.statsOf(family));
  },
  'DELETE /_sim/tasks/stats': ({ tasks }) => {
    tasks.resetStats();
    return ok({ ok: true });
  },
  'GET /_sim/tasks/:id': oneTask,
  // Faults: `{match?: {path_prefix?, model?, method?}, fault: {status?|hang?|reset?|cut_after?|reply?, delay_ms?},
  // times?}`, where `reply` is `{status?, content_type?, body? | body_base64?, headers?}` (faults.ts).
  'GET /_sim/faults': ({ faults }) => ok({ faults: faults.all() }),
  'POST /_sim/faults': ({ faults, body }) => {
    try {
      return ok(faults.add(body));
    } catch (e) {
      return { status: 400, json: { error: (e as Error).message, status: 400 } };
    }
  },
  'DELETE /_sim/faults': ({ faults }) => ok({ ok: true, cleared: faults.clear() }),
  'GET /_sim/videos/:file': video,
  // The prompt cache: its window, its floor and how many conversation starts it holds; DELETE forgets them.
  'GET /_sim/prompt-cache': ({ promptCache }) => ok(promptCache.view()),
  'DELETE /_sim/prompt-cache': ({ promptCache }) => ok({ ok: true, cleared: promptCache.clear() }),
  // Batches: how long one created from now on takes (`POST {duration_ms}`), and every batch with its progress.
  'GET /_sim/batches': ({ batches, query }) => ok(batches.view(query.get('family'))),
  'POST /_sim/batches': ({ batches, body }) => {
    try {
      return ok(batches.configure(body));
    } catch (e) {
      return { status: 400, json: { error: (e as Error).message, status: 400 } };
    }
  },
  'DELETE /_sim/batches': ({ batches }) => ok({ ok: true, cleared: batches.clear() }),
  // The MCP server: its open sessions and the tool calls it ran (`?tool=` for one tool's); DELETE forgets the calls.
  'GET /_sim/mcp': ({ mcp, query }) => ok({ sessions: mcp.ids(), calls: mcp.calls.list(query.get('tool')) }),
  'DELETE /_sim/mcp': ({ mcp }) => ok({ ok: true, cleared: mcp.calls.clear() }),
};
