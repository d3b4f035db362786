import { bearerAuth, type Family } from '../family';
import { errorBody } from '../videob/errors';
import { pollVideob, submitVideob } from '../videob/handler';

/**
 * `videob`: Volcengine Ark's Seedance content-generation tasks (docs/upstreams.md#videob). Ark sends its
 * request id in `x-request-id` and at the end of error messages, never as a body field.
 */
export const videob: Family = {
  name: 'videob',
  mount: '/videob',
  defaultKey: 'sim-videob-key',
  requestIdHeader: 'x-request-id',
  routes: {
    'POST /api/v3/contents/generations/tasks': submitVideob,
    'GET /api/v3/contents/generations/tasks/:id': pollVideob,
  },
  authorized: bearerAuth,
  errorBody,
};

/** Found on disk by index.ts. */
export const family: Family = videob;
