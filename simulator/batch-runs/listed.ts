import type { Issued } from './family-store';

/** One batch, as `GET /_sim/batches` lists it. */
export interface BatchView {
  readonly family: string;
  readonly id: string;
  /** In its vendor's word: OpenAI's `status`, Anthropic's `processing_status`. */
  readonly status: string;
  /** Its requests, and how many of them have been answered so far. */
  readonly requests: number;
  readonly answered: number;
  /** ISO-8601 creation time. */
  readonly created_at: string;
  /** What the control said when it was created. */
  readonly duration_ms: number;
}

/** A batch of either vendor, as the registry lists it. */
export interface ListedBatch extends Issued {
  readonly createdAt: number;
  /** Where it is at epoch-ms `now` (answering the lines due by then first). */
  view(now: number): BatchView;
}
