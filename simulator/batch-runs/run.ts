import { answerLine, type BatchLine, type LineAnswerer, type LineResult } from './line';

/**
 * A batch's lines answered as its time runs: spread evenly over a window, each answered (in order) once
 * its time has come. It holds no timer: whoever looks at the batch first catches it up to the clock, so a
 * test moves an injected clock through it as through a video task, and what a client sees depends only on
 * when it looks.
 */
export class BatchRun {
  /** The lines answered so far, in input order. */
  readonly results: LineResult[] = [];
  private stoppedAt = Infinity;

  constructor(
    readonly lines: readonly BatchLine[],
    private readonly by: LineAnswerer,
    /** Epoch ms the first line's time starts counting from. */
    readonly from: number,
    /** Epoch ms by which every line is due. */
    readonly until: number,
  ) {}

  /** Lines due by epoch-ms `at`: line i (from 0) is due at `from + (i + 1) × window / lines`. */
  due(at: number): number {
    const n = this.lines.length;
    if (at < this.from) return 0;
    const window = this.until - this.from;
    return window <= 0 ? n : Math.min(n, Math.floor(((at - this.from) * n) / window));
  }

  /** Answers every line due by `now` (never one due after a stop) that is not answered yet. */
  catchUp(now: number): void {
    const due = this.due(Math.min(now, this.stoppedAt));
    while (this.results.length < due)
      this.results.push(answerLine(this.lines[this.results.length]!, this.by));
  }

  /** A cancellation at `at`: what is due by then is answered, nothing after ever is. */
  stop(at: number): void {
    this.catchUp(at);
    this.stoppedAt = Math.min(this.stoppedAt, at);
  }
}
