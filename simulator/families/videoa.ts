import { bearerAuth, type Family } from '../family';
import { errorBody } from '../videoa/errors';
import { pollVideoa, submitVideoa } from '../videoa/handler';

/**
 * `videoa`: DashScope's async video synthesis (docs/upstreams.md#videoa), with `X-nativea-Async` where the
 * vendor has `X-DashScope-Async`. Bodies carry the simulator's request id as `request_id`.
 */
export const videoa: Family = {
  name: 'videoa',
  mount: '/videoa',
  defaultKey: 'sim-videoa-key',
  requestIdHeader: 'x-request-id',
  routes: {
    'POST /api/v1/services/aigc/video-generation/video-synthesis': submitVideoa,
    'GET /api/v1/tasks/:task_id': pollVideoa,
  },
  authorized: bearerAuth,
  errorBody,
};

/** Found on disk by index.ts. */
export const family: Family = videoa;
