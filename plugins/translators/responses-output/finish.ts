/**
 * How an upstream answer's end ends a Response: cut short by its token limit or by a content filter it
 * is `incomplete`, with the reason the API names (`Response.IncompleteDetails`); any other end
 * completes it. Each translator's table says which of its upstream's stop reasons are which.
 */
export type ResponseStatus = 'completed' | 'incomplete';

export interface Finish {
  readonly status: ResponseStatus;
  /** `incomplete_details` of the Response. */
  readonly details: { readonly reason: IncompleteReason } | null;
}

export type IncompleteReason = 'max_output_tokens' | 'content_filter';

export const COMPLETED: Finish = { status: 'completed', details: null };

/** The finish of each upstream stop reason `table` lists as incomplete; every other reason completes. */
export function finishTable(
  table: Readonly<Record<string, IncompleteReason>>,
): (stopReason: unknown) => Finish {
  const finishes = new Map<unknown, Finish>(
    Object.entries(table).map(([reason, why]) => [
      reason,
      { status: 'incomplete', details: { reason: why } },
    ]),
  );
  return (stopReason) => finishes.get(stopReason) ?? COMPLETED;
}
