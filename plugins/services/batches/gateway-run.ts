/**
 * The worker of batches the gateway runs itself: each step sends the next lines through the gateway's
 * own pipeline (line-call.ts), at `lines_per_second` and `line_concurrency`, then hands the batch back
 * to the poller; the last step writes the output and error files and ends the batch.
 *
 * A line is sent at most once. Before a step sends lines it stores that they are started (`sent`), so a
 * step that dies part-way leaves them started: they end in the error file as interrupted, never sent
 * again. A line the gateway refused before any upstream saw it (its rate limits) is sent again.
 */
import Bottleneck from 'bottleneck';
import { LRUCache } from 'lru-cache';
import {
  BATCH_LINE_SEAL,
  type BatchLineStore,
  type BatchLineTag,
  type FileStore,
  type Loopback,
  type Sealer,
  type StoredFile,
} from '../../../core/kit/service';
import {
  handedBack,
  type TaskChange,
  type TaskStep,
  type TaskWorker,
  type VideoTask,
} from '../../../core/kit/task';
import { batchFiles, UNANSWERED, type Unanswered } from './batch-output';
import { asWork, BATCH_KIND, batchOf, type BatchWork } from './batch-work';
import { CREDENTIAL } from './credential';
import { batchFileId } from './ids';
import { storedInputLines, type InputLine } from './input-lines';
import { lineEstimates, unsentEstimate } from './batch-hold';
import type { BudgetLedger, Catalogue, Pricing } from '../../../core/kit/stage';
import { callLine, type LineAnswer } from './line-call';
import type { BatchOptions } from './options';

export interface GatewayRunParts {
  readonly options: BatchOptions;
  readonly files: FileStore;
  readonly lines: BatchLineStore;
  readonly sealer: Sealer;
  readonly loopback: Loopback;
  readonly budgets: BudgetLedger;
  readonly catalogue: Catalogue;
  readonly pricing: Pricing;
  /** How long the gateway keeps the files it writes (`storage.batch_retention`); 0 keeps them. */
  readonly retentionMs: number;
  readonly now: () => number;
}

/** Input files parsed, by id (their content never changes): a step reads only its next lines. */
const PARSED_FILES = 16;

/** How much a step sends: about a second of lines at the configured rate. */
const STEP_SECONDS = 1;

export class GatewayRunWorker implements TaskWorker {
  readonly kind = BATCH_KIND;
  readonly concurrency: number;
  private readonly parsed = new LRUCache<string, InputLine[]>({ max: PARSED_FILES });
  private readonly estimated = new LRUCache<string, number[]>({ max: PARSED_FILES });

  constructor(private readonly parts: GatewayRunParts) {
    this.concurrency = parts.options.concurrency;
  }

  async step(task: VideoTask, step: TaskStep): Promise<TaskChange> {
    const work = batchOf(task);
    const input = await this.input(work.input_file_id);
    const ending = this.ending(task, work, input);
    if (ending) return this.finalize(task, work, input ?? [], ending, step);
    const began = this.parts.now();
    const { indexes, next } = this.nextLines(work);
    const started = await step.save({ status: 'running', work: asWork(next) });
    if (!started) return {}; // the lease was lost: another poller has the batch now
    // Before the lines go: each holds its own estimate as it passes the budget stage.
    const estimates = this.estimates(work.input_file_id, input!);
    await this.parts.budgets.shrinkTask(task.id, unsentEstimate(estimates, next.sent, next.retry));
    const answers = await this.send(task, input!, indexes);
    const stored = await this.store(task.id, indexes, answers);
    const latest = batchOf(started);
    return {
      work: asWork({
        ...latest,
        retry: [...latest.retry, ...stored.notSent],
        completed: latest.completed + stored.completed,
        failed: latest.failed + stored.failed,
      }),
      // The rate holds across steps: the next one starts once this one's lines have had their time.
      next_poll_at: began + Math.ceil((indexes.length * 1000) / this.parts.options.lines_per_second),
      lease: handedBack(task.lease?.owner ?? ''),
    };
  }

  /** Why the batch ends now, if it does: cancelled, expired, its input gone, or every line answered. */
  private ending(
    task: VideoTask,
    work: BatchWork,
    input: InputLine[] | undefined,
  ): Unanswered | 'done' | undefined {
    if (task.cancel_requested_at !== undefined) return UNANSWERED.cancelled;
    if (this.parts.now() >= work.expires_at) return UNANSWERED.expired;
    if (!input) return { code: 'input_file_missing', message: 'the batch input file was deleted' };
    return work.sent >= work.total && work.retry.length === 0 ? 'done' : undefined;
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

  private async send(task: VideoTask, input: InputLine[], indexes: number[]): Promise<LineAnswer[]> {
    const { options, sealer, loopback } = this.parts;
    const credential = sealer.open(CREDENTIAL, batchOf(task).credential) as string | null | undefined;
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

  /**
   * Writes the files (each under an id derived from the batch, so a finalize that died after writing one
   * finds it), then ends the batch in one stored change, and only then forgets the line results.
   */
  private async finalize(
    task: VideoTask,
    work: BatchWork,
    input: InputLine[],
    ending: Unanswered | 'done',
    step: TaskStep,
  ): Promise<TaskChange> {
    const now = this.parts.now();
    const finalizing = work.finalizing_at === null ? { ...work, finalizing_at: now } : work;
    if (work.finalizing_at === null && !(await step.save({ status: 'running', work: asWork(finalizing) })))
      return {};
    const results = await this.parts.lines.list(task.id);
    const retried = new Set(work.retry);
    // A line never started, or refused before it reached an upstream, did not run for the batch's
    // reason; one started and never answered may have run.
    const why = ending === 'done' ? UNANSWERED.interrupted : ending;
    const missing = (index: number): Unanswered =>
      index < work.sent && !retried.has(index) ? UNANSWERED.interrupted : why;
    const written = batchFiles(
      task.id,
      input.map((l) => l.custom_id),
      results,
      missing,
    );
    const output = await this.writeFile(task, batchFileId(task.id, 'output'), 'output', written.output, now);
    const errors = await this.writeFile(task, batchFileId(task.id, 'error'), 'error', written.errors, now);
    const ended = await step.save({
      ...endOf(ending),
      finished_at: now,
      lease: null,
      billed: true,
      work: asWork({
        ...finalizing,
        completed: written.completed,
        failed: written.failed,
        output_file_id: output,
        error_file_id: errors,
      }),
    });
    if (!ended) return {};
    await this.parts.budgets.taskEnded(task.id);
    await this.parts.lines.drop(task.id);
    return {};
  }

  /** Stores one of the batch's files unless it is empty or already stored; its id, or null for none. */
  private async writeFile(
    task: VideoTask,
    id: string,
    which: string,
    text: string,
    now: number,
  ): Promise<string | null> {
    if (text === '') return null;
    if (await this.parts.files.get(id, now)) return id;
    const content = Buffer.from(text, 'utf8');
    const file: StoredFile = {
      id,
      key_id: task.key_id,
      ...(task.team_id !== undefined ? { team_id: task.team_id } : {}),
      filename: `${task.id}_${which}.jsonl`,
      purpose: 'batch_output',
      bytes: content.length,
      lines: text.split('\n').length - 1,
      created_at: now,
      expires_at: this.parts.retentionMs > 0 ? now + this.parts.retentionMs : null,
    };
    await this.parts.files.put(file, content);
    return id;
  }

  /** Each line's estimate, once per file (prices read when first needed). */
  private estimates(fileId: string, input: readonly InputLine[]): number[] {
    let estimates = this.estimated.get(fileId);
    if (!estimates) {
      estimates = lineEstimates(input, this.parts);
      this.estimated.set(fileId, estimates);
    }
    return estimates;
  }

  private async input(fileId: string): Promise<InputLine[] | undefined> {
    const cached = this.parsed.get(fileId);
    if (cached) return cached;
    const content = await this.parts.files.content(fileId, this.parts.now());
    if (!content) return undefined;
    const lines = storedInputLines(content);
    this.parsed.set(fileId, lines);
    return lines;
  }
}

const lineTag = (batchId: string, line: InputLine): BatchLineTag => ({
  batch_id: batchId,
  custom_id: line.custom_id,
});

/** The status a batch ends in, and its error: an expired one is failed with `batch_expired` (batch-object.ts). */
function endOf(ending: Unanswered | 'done'): Pick<TaskChange, 'status' | 'error'> {
  if (ending === 'done') return { status: 'succeeded', error: null };
  if (ending === UNANSWERED.cancelled) return { status: 'cancelled', error: null };
  return { status: 'failed', error: ending };
}
