/** Undo actions run once at the end of a run, whether it finished, failed or was interrupted. */

type Task = () => Promise<void>;

/** A stack of clean-up tasks: run in reverse order of registration, each failure reported, none skipped. */
export class Cleanup {
  private readonly tasks: { name: string; task: Task }[] = [];
  private running: Promise<void> | undefined;

  add(name: string, task: Task): void {
    this.tasks.push({ name, task });
  }

  /** Runs every task once; later calls (a signal during a normal finish) wait for the same run. */
  run(): Promise<void> {
    this.running ??= this.runAll();
    return this.running;
  }

  private async runAll(): Promise<void> {
    for (const { name, task } of this.tasks.reverse()) {
      try {
        await task();
      } catch (err) {
        process.stderr.write(`bench: clean-up "${name}" failed: ${(err as Error).message}\n`);
      }
    }
  }
}
