/**
 * The benchmark's child processes: spawning compiled scripts, waiting for a line of their output,
 * reading their peak memory, and stopping them. Every child is killed when this process exits, whatever
 * the path to that exit, so a failed run never leaves a server behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Lines kept per child: enough to explain a failure, few enough to print. */
const TAIL_LINES = 30;
const KILL_AFTER_MS = 5_000;

const live = new Set<ChildProcess>();
const started = new Set<Child>();
// Last resort when cleanup could not run (an uncaught error, process.exit elsewhere): 'exit' handlers
// must be synchronous, so SIGKILL without waiting.
process.on('exit', () => {
  for (const proc of live) proc.kill('SIGKILL');
});

type LineWatcher = (line: string) => void;

/** How a child is started beside its script, arguments and environment. */
export interface StartOptions {
  readonly nodeArgs?: readonly string[];
  /** Where its stdout goes instead of a pipe. */
  readonly stdoutFile?: string;
  /** A command the node process runs under, e.g. `valgrind --tool=callgrind`. */
  readonly launcher?: readonly string[];
}

/** USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux architecture Node supports. */
const TICK_MICROS = 10_000;

/** A running child process started from a compiled script of this project. */
export class Child {
  private readonly tail: string[] = [];
  private readonly watchers = new Set<LineWatcher>();
  private exitStatus: string | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
    /** Where its stdout goes instead of a pipe, if it does. */
    private readonly stdoutFile?: string,
  ) {
    live.add(proc);
    started.add(this);
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        live.delete(proc);
        this.exitStatus = signal ? `killed by ${signal}` : `exited with code ${String(code)}`;
        resolve();
      });
    });
    // An 'error' (e.g. spawn failure) is also followed by 'exit' or leaves pid undefined; keep it for the tail.
    proc.on('error', (err) => this.keep(`[spawn error] ${err.message}`));
    // Both pipes are always drained: a child blocked on a full pipe would distort the measurement.
    if (proc.stdout) createInterface({ input: proc.stdout }).on('line', (line) => this.onLine(line));
    if (proc.stderr)
      createInterface({ input: proc.stderr }).on('line', (line) => this.keep(`[stderr] ${line}`));
  }

  /**
   * Starts `node ...nodeArgs <script> ...args` with the given extra environment, behind `launcher` when
   * one is given (a command prefix such as valgrind's). With `stdoutFile`, its stdout is written straight
   * to that file, as a deployment's log would be, with no pipe for this process to drain: a gateway's
   * access log is then measured as it costs in production.
   */
  static start(
    name: string,
    script: string,
    args: readonly string[],
    env: NodeJS.ProcessEnv = {},
    how: StartOptions = {},
  ): Child {
    const { nodeArgs = [], stdoutFile, launcher = [] } = how;
    const out = stdoutFile === undefined ? 'pipe' : openSync(stdoutFile, 'a');
    const command = [...launcher, process.execPath, ...nodeArgs, script, ...args];
    const proc = spawn(command[0]!, command.slice(1), {
      env: { ...process.env, ...env },
      stdio: ['ignore', out, 'pipe'],
    });
    if (typeof out === 'number') closeSync(out); // the child holds its own copy
    return new Child(name, proc, stdoutFile);
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** Resolves with the first stdout line matching `pattern`; rejects if the child exits or time runs out. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.watchers.delete(watch);
        clearInterval(poll);
      };
      const watch: LineWatcher = (line) => {
        if (!pattern.test(line)) return;
        done();
        resolve(line);
      };
      const timer = setTimeout(() => {
        done();
        reject(this.failure(`no line matching ${String(pattern)} within ${timeoutMs} ms`));
      }, timeoutMs);
      const poll = setInterval(() => {
        const found = this.fileLines().find((line) => pattern.test(line));
        if (found !== undefined) {
          done();
          resolve(found);
          return;
        }
        if (this.exitStatus === undefined) return;
        done();
        reject(this.failure(`${this.exitStatus} before printing a line matching ${String(pattern)}`));
      }, 50);
      this.watchers.add(watch);
    });
  }

  /** Throws, with the child's last output, if it is no longer running. */
  assertAlive(): void {
    if (this.exitStatus !== undefined) throw this.failure(this.exitStatus);
  }

  /** The process's peak resident set so far (VmHWM), in kB; undefined where /proc is not available. */
  peakRssKb(): number | undefined {
    if (this.pid === undefined) return undefined;
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kb = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)?.[1];
      return kb === undefined ? undefined : Number(kb);
    } catch {
      return undefined;
    }
  }

  /**
   * The CPU time the process has used so far (user + system, every thread), in µs; undefined where
   * /proc is not available. Linux counts it in ticks of 1/100 s (USER_HZ), so a run of a few seconds
   * measures it to well under 1%.
   */
  cpuMicros(): number | undefined {
    if (this.pid === undefined) return undefined;
    try {
      // The command name, in parentheses, may hold spaces: the fields are counted from after it.
      const fields = readFileSync(`/proc/${this.pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
      const ticks = Number(fields?.[11]) + Number(fields?.[12]); // utime, stime (fields 14 and 15)
      return Number.isFinite(ticks) ? ticks * TICK_MICROS : undefined;
    } catch {
      return undefined;
    }
  }

  /** Sends `signal` to the child, if it is still running. */
  signal(signal: NodeJS.Signals): void {
    if (this.exitStatus === undefined) this.proc.kill(signal);
  }

  /** SIGTERM, then SIGKILL if the child has not exited within a few seconds. */
  async stop(): Promise<void> {
    if (this.exitStatus !== undefined || this.pid === undefined) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), KILL_AFTER_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private onLine(line: string): void {
    this.keep(line);
    for (const watch of [...this.watchers]) watch(line);
  }

  private keep(line: string): void {
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }

  /** The lines of the stdout file so far (none when stdout is a pipe). */
  private fileLines(): string[] {
    if (this.stdoutFile === undefined) return [];
    try {
      return readFileSync(this.stdoutFile, 'utf8').split('\n');
    } catch {
      return [];
    }
  }

  private failure(what: string): Error {
    const tail = [...this.fileLines().filter(Boolean).slice(-TAIL_LINES), ...this.tail];
    const output = tail.length > 0 ? `; its last output:\n  ${tail.join('\n  ')}` : '; no output';
    return new Error(`${this.name}: ${what}${output}`);
  }
}

/** Stops every child started so far, those that failed to start included. */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((child) => child.stop()));
}
