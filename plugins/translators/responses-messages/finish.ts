/**
 * How a message's `stop_reason` ends a Response. Cut short by `max_tokens`, or by the context window
 * (`model_context_window_exceeded`), it is `incomplete` for `max_output_tokens`. A `refusal` is the
 * vendor's safety classifier stopping the answer, which is what the Responses API reports as
 * `incomplete` for `content_filter`. Every other reason (`end_turn`, `tool_use`, `stop_sequence`,
 * `pause_turn`, or none sent) completes it.
 */
import { finishTable } from '../responses-output/finish';

export const finishOf = finishTable({
  max_tokens: 'max_output_tokens',
  model_context_window_exceeded: 'max_output_tokens',
  refusal: 'content_filter',
});

/** Messages' id prefix (`msg_…`), which the Response's ids do not repeat. */
export const MESSAGE_ID_PREFIX = /^msg_/;
