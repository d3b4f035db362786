/**
 * The end of a batch, however it ran: its output and error files written from the line results (each
 * under an id derived from the batch, so a finalize that died after writing one finds it), the batch
 * ended in one stored change, its budget hold released, and only then its line results forgotten.
 */
import type { BatchLineStore, FileStore, StoredFile } from '../../../core/kit/service';
import type { BudgetLedger } from '../../../core/kit/tokens';
import type { TaskChange, VideoTask } from '../../../core/kit/task';
import { batchFiles, UNANSWERED, type Unanswered } from './batch-output';
import type { BatchRun } from './batch-run';
import { asWork } from './batch-work';
import { batchFileId } from './ids';

export interface FinalizeParts {
  readonly files: FileStore;
  readonly lines: BatchLineStore;
  readonly budgets: BudgetLedger;
  /** How long the gateway keeps the files it writes (`storage.batch_retention`); 0 keeps them. */
  readonly retentionMs: number;
  readonly now: () => number;
}

export class BatchFinalizer {
  constructor(private readonly parts: FinalizeParts) {}

  /** `ending`: `done` when every line had its turn, else why the lines without an answer have none. */
  async finalize(run: BatchRun, ending: Unanswered | 'done'): Promise<TaskChange> {
    const { task, work, step } = run;
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
    const customIds = (run.input ?? []).map((l) => l.custom_id);
    const written = batchFiles(task.id, customIds, results, missing);
    const output = await this.write(task, 'output', written.output, now);
    const errors = await this.write(task, 'error', written.errors, now);
    const ended = await step.save({
      ...endOf(ending),
      finished_at: now,
      lease: null,
      billed: true,
      held_micros: 0,
      work: asWork({
        ...finalizing,
        completed: written.completed,
        failed: written.failed,
        canceled: written.unanswered[UNANSWERED.cancelled.code] ?? 0,
        expired: written.unanswered[UNANSWERED.expired.code] ?? 0,
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
  private async write(
    task: VideoTask,
    which: 'output' | 'error',
    text: string,
    now: number,
  ): Promise<string | null> {
    if (text === '') return null;
    const id = batchFileId(task.id, which);
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
}

/** The status a batch ends in, and its error: an expired one is failed with `batch_expired` (batch-object.ts). */
function endOf(ending: Unanswered | 'done'): Pick<TaskChange, 'status' | 'error'> {
  if (ending === 'done') return { status: 'succeeded', error: null };
  if (ending === UNANSWERED.cancelled) return { status: 'cancelled', error: null };
  return { status: 'failed', error: ending };
}
