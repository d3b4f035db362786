/**
 * A batch as the task store keeps it: a task of kind `batch`, whose `work` is this state. The task's
 * own fields carry what every task has (owner, model, upstream, status and its history, lease); the
 * status maps onto the batch API's words in batch-status.ts.
 */
import type { JsonObject } from '../../../core/kit/json';
import type { VideoTask } from '../../../core/kit/task';

export const BATCH_KIND = 'batch';

/** Who sends the lines: the gateway itself, through its own pipeline, or the vendor's batch API. */
export type BatchMode = 'gateway' | 'native';

/** The client API a batch was created through: its objects and result lines are that API's. */
export type BatchApi = 'openai' | 'anthropic';

export interface BatchWork {
  readonly api: BatchApi;
  readonly mode: BatchMode;
  /** The API path every line calls (`/v1/chat/completions`). */
  readonly endpoint: string;
  readonly input_file_id: string;
  readonly completion_window: string;
  readonly metadata: Readonly<Record<string, string>> | null;
  /** Lines in the input file. */
  readonly total: number;
  /** Lines `[0, sent)` have been started: none of them is sent again, whatever happens. */
  readonly sent: number;
  /** Started lines the gateway refused before any upstream saw them (a rate limit): sent again first. */
  readonly retry: readonly number[];
  /** Lines answered with 200, and lines answered otherwise, so far. */
  readonly completed: number;
  readonly failed: number;
  /** Of `failed`, once the batch has ended: lines that never ran because it was cancelled, or expired. */
  readonly canceled: number;
  readonly expired: number;
  /** The key the lines are sent with, sealed: only the gateway's instances can open it. */
  readonly credential: string;
  /** Headers of the creating request every line carries as the same call would (carried-headers.ts). */
  readonly headers: Readonly<Record<string, string>>;
  /** Native: a step began handing the batch to the vendor (a step that finds it so, without an id, died doing it). */
  readonly submitting: boolean;
  /** Native: the vendor was asked to cancel. */
  readonly cancel_sent: boolean;
  /** Unix ms: when the batch stops taking lines and expires. */
  readonly expires_at: number;
  /** Unix ms the batch began writing its files, once it has. */
  readonly finalizing_at: number | null;
  readonly output_file_id: string | null;
  readonly error_file_id: string | null;
}

/** The batch state of a task of kind `batch`. */
export const batchOf = (task: VideoTask): BatchWork => task.work as unknown as BatchWork;

/** A batch state as the task's `work`. */
export const asWork = (work: BatchWork): JsonObject => work as unknown as JsonObject;

export const isBatch = (task: VideoTask): boolean => task.kind === BATCH_KIND;
