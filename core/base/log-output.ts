/**
 * The log's way to stdout: lines (pino's, and the access log's, serialised elsewhere) gathered into chunks
 * of CHUNK_CHARS or FLUSH_EVERY_MS, whichever comes first, and handed to pino's asynchronous destination
 * (sonic-boom) a chunk at a time. sonic-boom measures the UTF-8 length of the text it holds on every
 * write, so a write per line cost a request about 8k instructions under load (callgrind); a write per
 * chunk costs a line a string append.
 *
 * Lines keep their order: every line goes through here, and is rendered here (pretty lines at a
 * terminal, pretty-lines.ts) as its chunk is handed on, so no other stream holds lines back. At exit (an
 * uncaught exception included) what is gathered is written synchronously before the destination's own
 * exit flush; a SIGKILL loses at most the last FLUSH_EVERY_MS.
 */
import { register } from 'on-exit-leak-free';
import pino from 'pino';

/** Gathered lines are written at least this often, so a quiet gateway's log is never behind by more. */
const FLUSH_EVERY_MS = 200;

/**
 * A chunk is handed on once it is this long: sonic-boom's own write threshold before (`minLength`), so a
 * line under load leaves no later than it did, in a tenth of the writes.
 */
const CHUNK_CHARS = 4 * 1024;

type Destination = ReturnType<typeof pino.destination>;

export class LogOutput {
  private pending = '';
  private readonly destination: Destination;
  /** Set while lines wait: the latest they are handed on. */
  private timer: NodeJS.Timeout | undefined;

  /** `render`: what each chunk becomes on its way out (pretty lines); JSON lines go out as they are. */
  constructor(private readonly render?: (lines: string) => string) {
    // Registered before the destination is made, so that at exit this runs first and the destination's
    // own exit flush writes what it was handed.
    register(this, (output) => output.flushSync());
    this.destination = pino.destination({ dest: 1, sync: false });
  }

  /** One or more whole lines. */
  write(lines: string): boolean {
    this.pending += lines;
    if (this.pending.length >= CHUNK_CHARS) this.handOn();
    else this.timer ??= setTimeout(() => this.handOn(), FLUSH_EVERY_MS).unref();
    return true;
  }

  /**
   * pino's `logger.flush(callback)`: everything gathered is handed on now. sonic-boom, holding nothing
   * back of its own, calls `callback` at once, not once the chunk is written.
   */
  flush(callback?: (err?: Error) => void): void {
    this.handOn();
    this.destination.flush(callback);
  }

  /**
   * Writes everything gathered now, before returning (at exit), behind a chunk the destination may still
   * be writing asynchronously: text written to stdout directly after this can overtake that chunk.
   */
  flushSync(): void {
    this.handOn();
    this.destination.flushSync();
  }

  private handOn(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    this.destination.write(this.render ? this.render(chunk) : chunk);
  }
}
