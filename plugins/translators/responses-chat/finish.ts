/**
 * How a chat completion's `finish_reason` ends a Response: `length` and `content_filter` leave it
 * `incomplete`, with the reason the API names (`Response.IncompleteDetails`); every other reason
 * (`stop`, `tool_calls`, or none sent) completes it.
 */
export type ResponseStatus = 'completed' | 'incomplete';

export interface Finish {
  readonly status: ResponseStatus;
  /** `incomplete_details` of the Response. */
  readonly details: { readonly reason: 'max_output_tokens' | 'content_filter' } | null;
}

const COMPLETED: Finish = { status: 'completed', details: null };

const INCOMPLETE: ReadonlyMap<unknown, Finish> = new Map([
  ['length', { status: 'incomplete', details: { reason: 'max_output_tokens' } }],
  ['content_filter', { status: 'incomplete', details: { reason: 'content_filter' } }],
]);

export const finishOf = (finishReason: unknown): Finish => INCOMPLETE.get(finishReason) ?? COMPLETED;
