/** How long a batch takes from creation to its end until `/_sim/batches` says otherwise: about a second. */
export const DEFAULT_BATCH_MS = 1000;

/**
 * The time a batch spends at each of its edges: OpenAI's `validating` before the lines run and
 * `finalizing` after, and a cancellation from `cancelling` to its end. A tenth of the batch, so a batch
 * set to take a minute also takes its time to validate and to cancel.
 */
export const edgeMs = (durationMs: number): number => Math.floor(durationMs / 10);
