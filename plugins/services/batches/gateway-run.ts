/**
 * Batches the gateway runs itself: each step sends the next lines through the gateway's own pipeline
 * (line-call.ts), at `lines_per_second` and `line_concurrency`, then hands the batch back to the poller;
 * the last step writes the files and ends the batch.
 *
 * A line is sent at most once. Before a step sends lines it stores that they are started (`sent`), so a
 * step that dies part-way leaves them started: they end in the error file as interrupted, never sent
 * again. A line the gateway refused before any upstream saw it (its rate limits) is sent again.
 */
import Bottleneck from 'bottleneck';
import {
  BATCH_LINE_SEAL,
  type BatchLineStore,
  type BatchLineTag,
  type Loopback,
  type Sealer,
} from '../../../core/kit/service';
import type { BudgetLedger } from '../../../core/kit/tokens';
import { handedBack, type TaskChange, type VideoTask } from '../../../core/kit/task';
import { unsentEstimate } from './batch-hold';
import { stopped, type BatchRun, type Finalize } from './batch-run';
import { asWork, type BatchWork } from './batch-work';
import { CREDENTIAL } from './credential';
import type { InputLine } from './input-lines';
import { callLine, type LineAnswer } from './line-call';
import type { BatchOptions } from './options';

export interface GatewayRunParts {
  readonly options: BatchOptions;
  readonly lines: BatchLineStore;
  readonly sealer: Sealer;
  readonly loopback: Loopback;
  readonly budgets: BudgetLedger;
  readonly now: () => number;
}

/** How much a step sends: about a second of lines at the configured rate. */
const STEP_SECONDS = 1;

export class GatewayRun {
  constructor(
    private readonly parts: GatewayRunParts,
    private readonly finalize: Finalize,
  ) {}

  async step(run: BatchRun): Promise<TaskChange> {
    const { task, work, step } = run;
    const began = this.parts.now();
    const stop = stopped(run, began);
    if (stop) return this.finalize(run, stop);
    if (work.sent >= work.total && work.retry.length === 0) return this.finalize(run, 'done');
    const { indexes, next } = this.nextLines(work);
    // Before the lines go: each holds its own estimate as it passes the budget stage.
    const held = Math.min(task.held_micros ?? 0, unsentEstimate(run.estimates(), next.sent, next.retry));
    const started = await step.save({ status: 'running', work: asWork(next), held_micros: held });
    if (!started) return {}; // the lease was lost: another poller has the batch now
    await this.parts.budgets.shrinkTask(task.id, held);
    const answers = await this.send(task, work, run.input!, indexes);
    const stored = await this.store(task.id, indexes, answers);
    return {
      work: asWork({
        ...next,
        retry: [...next.retry, ...stored.notSent],
        completed: next.completed + stored.completed,
        failed: next.failed + stored.failed,
      }),
      // The rate holds across steps: the next one starts once this one's lines have had their time.
      next_poll_at: began + Math.ceil((indexes.length * 1000) / this.parts.options.lines_per_second),
      lease: handedBack(task.lease?.owner ?? ''),
    };
  }

  /** The lines this step sends (those to retry first), and the batch with them started. */
  private nextLines(work: BatchWork): { indexes: number[]; next: BatchWork } {
    const { lines_per_second } = this.parts.options;
    const room = Math.max(1, Math.ceil(lines_per_second * STEP_SECONDS));
    const retried = work.retry.slice(0, room);
    const fresh = Math.min(room - retried.length, work.total - work.sent);
    const indexes = [...retried, ...Array.from({ length: fresh }, (_, i) => work.sent + i)];
    return { indexes, next: { ...work, sent: work.sent + fresh, retry: work.retry.slice(retried.length) } };
  }

  private async send(
    task: VideoTask,
    work: BatchWork,
    input: readonly InputLine[],
    indexes: number[],
  ): Promise<LineAnswer[]> {
    const { options, sealer, loopback } = this.parts;
    const credential = sealer.open(CREDENTIAL, work.credential) as string | null | undefined;
    const limiter = new Bottleneck({
      maxConcurrent: options.line_concurrency,
      minTime: Math.floor(1000 / options.lines_per_second),
    });
    return Promise.all(
      indexes.map((index) =>
        limiter.schedule(() =>
          callLine(index, input[index]!, {
            origin: loopback.origin,
            credential: credential ?? null,
            headers: work.headers,
            tag: sealer.seal(BATCH_LINE_SEAL, lineTag(task.id, input[index]!)),
            requestId: `${task.id}:${index}`,
          }),
        ),
      ),
    );
  }

  /** Stores each answer once; counts what this step stored, and the lines to send again. */
  private async store(batchId: string, indexes: readonly number[], answers: readonly LineAnswer[]) {
    const counts = { completed: 0, failed: 0, notSent: [] as number[] };
    for (const [i, answer] of answers.entries()) {
      if (answer === 'not_sent') {
        counts.notSent.push(indexes[i]!);
        continue;
      }
      if (!(await this.parts.lines.put(batchId, answer))) continue; // stored by an earlier try
      if (answer.status_code === 200 && answer.error === null) counts.completed++;
      else counts.failed++;
    }
    return counts;
  }
}

const lineTag = (batchId: string, line: InputLine): BatchLineTag => ({
  batch_id: batchId,
  custom_id: line.custom_id,
});
