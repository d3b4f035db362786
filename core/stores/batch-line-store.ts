/**
 * The results of the lines of a batch the gateway runs itself, kept as each line ends until the batch is
 * finalized into its output and error files. A line's result is written once: the first write for a
 * `(batch_id, index)` wins and a later one is ignored, so a line is never counted twice, whichever
 * instance's poller reports it.
 */
import { token } from '../base/token';
import type { JsonObject } from '../base/json';

export interface BatchLineResult {
  /** The line's place in the input file, from 0. */
  readonly index: number;
  readonly custom_id: string;
  /** The gateway's answer to the line's request: its status and body, as the client would have had them. */
  readonly status_code: number;
  readonly request_id: string;
  readonly body: JsonObject | null;
  /** Set when the line got no answer at all (interrupted, expired, cancelled before it ran). */
  readonly error: { readonly code: string; readonly message: string } | null;
}

export interface BatchLineStore {
  /** Stores the result unless the line has one; true when this call stored it. Durable before resolving. */
  put(batchId: string, result: BatchLineResult): Promise<boolean>;
  /** Every stored result of the batch, in line order. */
  list(batchId: string): Promise<BatchLineResult[]>;
  /** How many lines of the batch have results. */
  count(batchId: string): Promise<number>;
  /** Forgets the batch's results (once its files are written). */
  drop(batchId: string): Promise<void>;
  close(): Promise<void>;
}

export const BatchLineStoreToken = token<BatchLineStore>('BatchLineStore');
