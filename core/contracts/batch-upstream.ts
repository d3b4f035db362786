/**
 * A vendor's own batch API, as an upstream plugin offers it: the gateway hands it a batch's lines already
 * mapped for the vendor (each by the family's `prepare`, as the same call alone would be), then polls the
 * vendor's batch until it ends and reads its results. The gateway keeps the batch, its files and its
 * billing; the plugin speaks only the vendor's protocol.
 */
import type { JsonObject } from '../base/json';
import type { TaskError } from '../stores/video-task';

/** One line as the vendor gets it: the client's id, and the body `prepare` made for the vendor. */
export interface Line {
  readonly custom_id: string;
  readonly body: JsonObject;
}

/** What one poll of the vendor's batch learnt. */
export type State =
  /** Still running: `done` lines of it have an answer so far (for progress only). */
  | { readonly state: 'running'; readonly done: number }
  /** Over (finished, cancelled or expired at the vendor): its results are ready to read. */
  | { readonly state: 'ended' }
  /** The vendor refused the batch as a whole: nothing ran. */
  | { readonly state: 'failed'; readonly error: TaskError };

/** A line's outcome at the vendor: its answer (status and body, as the same call alone would get), or none. */
export interface LineResult {
  readonly custom_id: string;
  readonly status_code: number;
  readonly body: JsonObject | null;
  /** Set when the line got no answer (cancelled or expired at the vendor). */
  readonly error: { readonly code: string; readonly message: string } | null;
}

export interface Upstream {
  /** The client API paths (`/v1/chat/completions`, `/v1/messages`) whose lines the vendor runs in its batches. */
  readonly endpoints: readonly string[];
  /** Whether every line of one of its batches must name the same model (OpenAI's rule). */
  readonly oneModel: boolean;
  /**
   * Creates the vendor's batch of `lines` for `endpoint`; returns its id at the vendor. Throws a
   * GatewayError for the vendor's refusal (4xx: nothing was created) or a transport failure.
   */
  submit(endpoint: string, lines: readonly Line[], requestId: string): Promise<string>;
  /** Reads the vendor's batch once. Throws on a transient failure (transport, 5xx, 429). */
  poll(vendorId: string): Promise<State>;
  /** Every line's outcome once the batch has ended, in any order. */
  results(vendorId: string): Promise<readonly LineResult[]>;
  /** Asks the vendor to stop the batch; lines it already ran stay in its results. */
  cancel(vendorId: string): Promise<void>;
}
