/**
 * An OpenAI batch's life, computed from the clock when asked (it holds no timer): `validating` for the
 * first tenth of its time, `in_progress` while its lines are answered one by one, `finalizing` for the
 * last tenth, then `completed` with its files written. An input that fails validation ends `failed` when
 * validation ends; a cancel is `cancelling` for a tenth of its time, then `cancelled`, keeping the lines
 * answered by then.
 */
import type { FamilyStore } from '../batch-runs/family-store';
import type { LineAnswerer } from '../batch-runs/line';
import { edgeMs } from '../batch-runs/pace';
import type { BatchView, ListedBatch } from '../batch-runs/listed';
import { BatchRun } from '../batch-runs/run';
import type { StoredFile } from '../files/stored-file';
import type { BatchInput } from './input';
import { writeFiles, type BatchFiles } from './output';
import type { BatchRequest } from './request';

export type OpenAiStatus =
  'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'cancelling' | 'cancelled';

/** The statuses a cancel no longer applies to. */
export const ENDED: ReadonlySet<OpenAiStatus> = new Set(['failed', 'completed', 'cancelled']);

/** What a batch is made from at its creation. */
export interface OpenAiBatchSpec {
  readonly family: string;
  readonly id: string;
  readonly request: BatchRequest;
  readonly input: BatchInput;
  /** The family's answer for the batch's endpoint. */
  readonly answerer: LineAnswerer;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly durationMs: number;
}

export class OpenAiBatch implements ListedBatch {
  readonly family: string;
  readonly id: string;
  readonly createdAt: number;
  /** Its lines; null when the input failed validation, so none ever runs. */
  readonly run: BatchRun | null;
  /** Epoch ms validation ends (and the lines start), finalizing starts, and the batch completes. */
  readonly validatedAt: number;
  readonly finalizingAt: number;
  readonly completesAt: number;
  /** Milliseconds from a cancel to `cancelled`. */
  readonly cancelMs: number;
  /** Epoch ms of the cancel, once there was one. */
  cancelledAt: number | null = null;
  /** Its output and error files, once it ended and wrote them. */
  files: BatchFiles | null = null;

  constructor(readonly spec: OpenAiBatchSpec) {
    const { createdAt, durationMs, input } = spec;
    this.family = spec.family;
    this.id = spec.id;
    this.createdAt = createdAt;
    const edge = edgeMs(durationMs);
    this.validatedAt = createdAt + edge;
    this.finalizingAt = createdAt + durationMs - edge;
    this.completesAt = createdAt + durationMs;
    this.cancelMs = edge;
    this.run = input.ok
      ? new BatchRun(input.lines, spec.answerer, this.validatedAt, this.finalizingAt)
      : null;
  }

  /** Whether its life got to epoch-ms `moment` by `now` (a cancel before it means never). */
  reached(moment: number, now: number): boolean {
    return now >= moment && (this.cancelledAt === null || this.cancelledAt >= moment);
  }

  status(now: number): OpenAiStatus {
    // A cancel comes before the end of validation, or while the lines run: either way it decides.
    if (this.cancelledAt !== null) return now < this.cancelledAt + this.cancelMs ? 'cancelling' : 'cancelled';
    if (!this.run) return now < this.validatedAt ? 'validating' : 'failed';
    if (now < this.validatedAt) return 'validating';
    if (now < this.finalizingAt) return 'in_progress';
    return now < this.completesAt ? 'finalizing' : 'completed';
  }

  /** Cancels it as of `now`: the lines due by then are answered, no other ever is. */
  cancel(now: number): void {
    this.run?.stop(now);
    this.cancelledAt = now;
  }

  /** Answers the lines due by `now` and, once it has ended, writes its files (once). */
  settle(now: number, files: FamilyStore<StoredFile>): void {
    this.run?.catchUp(now);
    const status = this.status(now);
    if (!this.run || this.files || (status !== 'completed' && status !== 'cancelled')) return;
    const at = status === 'completed' ? this.completesAt : this.cancelledAt! + this.cancelMs;
    this.files = writeFiles({ family: this.family, batchId: this.id, at, files }, this.run.results);
  }

  view(now: number): BatchView {
    this.run?.catchUp(now);
    return {
      family: this.family,
      id: this.id,
      status: this.status(now),
      requests: this.run?.lines.length ?? 0,
      answered: this.run?.results.length ?? 0,
      created_at: new Date(this.createdAt).toISOString(),
      duration_ms: this.spec.durationMs,
    };
  }
}
