/**
 * How a chat completion's `finish_reason` ends a Response: `length` and `content_filter` leave it
 * `incomplete`; every other reason (`stop`, `tool_calls`, or none sent) completes it.
 */
import { finishTable } from '../responses-output/finish';

export const finishOf = finishTable({ length: 'max_output_tokens', content_filter: 'content_filter' });
