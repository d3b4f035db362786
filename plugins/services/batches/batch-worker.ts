/**
 * The poller's worker of batches: each step reads the batch's input (parsed once per file) and hands it to
 * the way the batch runs, the gateway's own or a vendor's; both end it through the same finalize.
 */
import { LRUCache } from 'lru-cache';
import type { FileStore } from '../../../core/kit/service';
import type { TaskChange, TaskStep, TaskWorker, VideoTask } from '../../../core/kit/task';
import { lineEstimates, type HoldPrices } from './batch-hold';
import type { BatchRun } from './batch-run';
import { BATCH_KIND, batchOf } from './batch-work';
import { storedInputLines, type InputLine } from './input-lines';

/** Input files parsed, by id (their content never changes): a step reads only its next lines. */
const PARSED_FILES = 16;

export interface BatchWays {
  readonly gateway: { step(run: BatchRun): Promise<TaskChange> };
  readonly native: { step(run: BatchRun): Promise<TaskChange> };
}

export class BatchWorker implements TaskWorker {
  readonly kind = BATCH_KIND;
  private readonly parsed = new LRUCache<string, InputLine[]>({ max: PARSED_FILES });
  private readonly estimated = new LRUCache<string, number[]>({ max: PARSED_FILES });

  constructor(
    readonly concurrency: number,
    private readonly files: FileStore,
    private readonly prices: HoldPrices,
    private readonly ways: BatchWays,
    private readonly now: () => number,
  ) {}

  async step(task: VideoTask, step: TaskStep): Promise<TaskChange> {
    const work = batchOf(task);
    const input = await this.input(work.input_file_id);
    const run: BatchRun = {
      task,
      work,
      input,
      step,
      estimates: () => this.estimates(work.input_file_id, input),
    };
    return work.mode === 'native' ? this.ways.native.step(run) : this.ways.gateway.step(run);
  }

  /** Each line's estimate, once per file (prices read when first needed). */
  private estimates(fileId: string, input: readonly InputLine[] | undefined): number[] {
    let estimates = this.estimated.get(fileId);
    if (!estimates) {
      estimates = lineEstimates(input ?? [], this.prices);
      this.estimated.set(fileId, estimates);
    }
    return estimates;
  }

  private async input(fileId: string): Promise<InputLine[] | undefined> {
    const cached = this.parsed.get(fileId);
    if (cached) return cached;
    const content = await this.files.content(fileId, this.now());
    if (!content) return undefined;
    const lines = storedInputLines(content);
    this.parsed.set(fileId, lines);
    return lines;
  }
}
