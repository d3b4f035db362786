import { FamilyStore } from './batch-runs/family-store';
import type { BatchView, ListedBatch } from './batch-runs/listed';
import { DEFAULT_BATCH_MS } from './batch-runs/pace';
import type { OpenAiBatch } from './batches/batch';
import { MAX_TASK_MS } from './controls';
import type { StoredFile } from './files/stored-file';
import { isRecord } from './is-record';
import type { MessageBatch } from './message-batches/batch';

/** The `/_sim/batches` control. */
export interface BatchControl {
  /** Milliseconds from creation to the end of a batch created from now on. */
  readonly duration_ms: number;
}

/** The control and what it lists. */
export interface BatchesView extends BatchControl {
  readonly batches: readonly BatchView[];
}

/** Reads `{duration_ms}`; throws a message naming the bad field. */
function durationOf(body: unknown): number {
  const duration = isRecord(body) ? body.duration_ms : undefined;
  if (
    typeof duration === 'number' &&
    Number.isInteger(duration) &&
    duration >= 0 &&
    duration <= MAX_TASK_MS
  ) {
    return duration;
  }
  throw new Error(`'duration_ms' must be an integer from 0 to ${MAX_TASK_MS}`);
}

/**
 * Every batch of one simulator, both vendors', and the files OpenAI's read and write. How long a batch
 * takes is set here (`POST /_sim/batches`) and fixed at its creation, as a video task's time is.
 */
export class BatchRegistry {
  /** Milliseconds from creation to the end of a batch created now. */
  durationMs = DEFAULT_BATCH_MS;
  /** OpenAI's Files API: batch input files, and the output and error files batches write. */
  readonly files = new FamilyStore<StoredFile>();
  /** OpenAI's Batch API batches. */
  readonly openAi = new FamilyStore<OpenAiBatch>();
  /** Anthropic's Message Batches. */
  readonly messages = new FamilyStore<MessageBatch>();

  constructor(
    /** Epoch ms now: what a batch's progress is timed by (tests move a fake clock). */
    readonly now: () => number = Date.now,
  ) {}

  /** Sets how long batches created from now on take. @throws Error naming the bad field. */
  configure(body: unknown): BatchControl {
    this.durationMs = durationOf(body);
    return { duration_ms: this.durationMs };
  }

  /** The control, and every batch (only `family`'s when given), oldest first. */
  view(family?: string | null): BatchesView {
    const now = this.now();
    const all: ListedBatch[] = [...this.openAi.list(), ...this.messages.list()];
    const batches = all
      .filter((b) => family == null || b.family === family)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((b) => b.view(now));
    return { duration_ms: this.durationMs, batches };
  }

  /** Forgets every batch and file (the control stays); returns how many batches there were. */
  clear(): number {
    this.files.clear();
    return this.openAi.clear() + this.messages.clear();
  }
}
