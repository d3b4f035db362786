/**
 * A Message Batch's life, computed from the clock when asked (it holds no timer): `in_progress` while its
 * requests are answered one by one over its time, then `ended` with its results. A cancel is `canceling`
 * for a tenth of its time, then `ended`, the requests not answered by then `canceled`.
 */
import type { BatchLine, LineAnswerer } from '../batch-runs/line';
import { edgeMs } from '../batch-runs/pace';
import type { BatchView, ListedBatch } from '../batch-runs/listed';
import { BatchRun } from '../batch-runs/run';

export type ProcessingStatus = 'in_progress' | 'canceling' | 'ended';

/** What a batch is made from at its creation. */
export interface MessageBatchSpec {
  readonly family: string;
  readonly id: string;
  readonly requests: readonly BatchLine[];
  readonly answerer: LineAnswerer;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly durationMs: number;
  /** The absolute address of its results, given once it has ended. */
  readonly resultsUrl: string;
}

export class MessageBatch implements ListedBatch {
  readonly family: string;
  readonly id: string;
  readonly createdAt: number;
  readonly run: BatchRun;
  /** Milliseconds from a cancel to `ended`. */
  readonly cancelMs: number;
  /** Epoch ms of the cancel, once there was one. */
  cancelledAt: number | null = null;

  constructor(readonly spec: MessageBatchSpec) {
    this.family = spec.family;
    this.id = spec.id;
    this.createdAt = spec.createdAt;
    this.cancelMs = edgeMs(spec.durationMs);
    this.run = new BatchRun(spec.requests, spec.answerer, spec.createdAt, spec.createdAt + spec.durationMs);
  }

  /** Epoch ms processing ends: its time run out, or a cancel's. */
  get endsAt(): number {
    return this.cancelledAt === null ? this.run.until : this.cancelledAt + this.cancelMs;
  }

  status(now: number): ProcessingStatus {
    if (now >= this.endsAt) return 'ended';
    return this.cancelledAt === null ? 'in_progress' : 'canceling';
  }

  /** Cancels it as of `now`: the requests due by then are answered, no other ever is. */
  cancel(now: number): void {
    this.run.stop(now);
    this.cancelledAt = now;
  }

  view(now: number): BatchView {
    this.run.catchUp(now);
    return {
      family: this.family,
      id: this.id,
      status: this.status(now),
      requests: this.run.lines.length,
      answered: this.run.results.length,
      created_at: new Date(this.createdAt).toISOString(),
      duration_ms: this.spec.durationMs,
    };
  }
}
