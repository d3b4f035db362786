import type { Controls } from './controls';
import type { Exchange } from './exchange';

/** One SSE event of a stream, ready to write. */
export interface StreamEvent {
  /** The complete frame, e.g. `data: <json>\n\n`. */
  readonly frame: string;
  /** For content chunks, the token's position within its choice (paces `tps`); null otherwise. */
  readonly step: number | null;
}

/** How a stream ends, in the family's protocol. */
export interface StreamEnding {
  /** Frame written after the last event, e.g. `data: [DONE]\n\n`; null when the protocol has none. */
  readonly done: string | null;
  /** Frame of the in-stream error that `error_after` sends. */
  errorFrame(): string;
}

/**
 * Writes a stream's events as they become due, applying the streaming controls: `tps` pacing,
 * `silence_ms` after the first content chunk, and the `cut_after` / `error_after` failures.
 * A failure fires as soon as that many content chunks are out, or in place of the normal end
 * when the stream is shorter, so asking for one always produces one. Without pacing the events
 * go out in one synchronous, corked batch: no timers on the benchmark path.
 */
class SseWriter {
  private contentChunks = 0;
  private origin = Date.now();
  private silenceUntil = 0;
  private pending: StreamEvent | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly msPerToken: number;

  constructor(
    private readonly ex: Exchange,
    private readonly events: Iterator<StreamEvent, void>,
    private readonly controls: Controls,
    private readonly ending: StreamEnding,
  ) {
    const tps = controls.tps ?? 0;
    this.msPerToken = tps > 0 ? 1000 / tps : 0;
    ex.onClose(() => this.stop());
  }

  /** Writes what is due now and schedules the rest; safe to call again from a timer or 'drain'. */
  readonly pump = (): void => {
    this.timer = undefined;
    const res = this.ex.res;
    res.cork();
    try {
      this.writeDue();
    } finally {
      res.uncork();
    }
  };

  private writeDue(): void {
    while (!this.stopped) {
      if (this.failureDue()) return;
      const ev = this.pending ?? this.nextEvent();
      if (!ev) return this.end();
      const wait = this.waitFor(ev);
      if (wait > 0) {
        this.pending = ev;
        this.timer = setTimeout(this.pump, wait);
        return;
      }
      this.pending = undefined;
      const flowing = this.ex.res.write(ev.frame);
      if (ev.step !== null) this.countContentChunk();
      if (!flowing) return void this.ex.res.once('drain', this.pump);
    }
  }

  private nextEvent(): StreamEvent | undefined {
    const r = this.events.next();
    return r.done ? undefined : r.value;
  }

  /** Milliseconds until `ev` may go out (0 on the unpaced path without reading the clock). */
  private waitFor(ev: StreamEvent): number {
    let due = this.silenceUntil;
    if (ev.step !== null && this.msPerToken > 0) due = Math.max(due, this.origin + ev.step * this.msPerToken);
    return due === 0 ? 0 : due - Date.now();
  }

  private countContentChunk(): void {
    this.contentChunks++;
    const silence = this.controls.silenceMs ?? 0;
    if (this.contentChunks !== 1 || silence === 0) return;
    this.silenceUntil = Date.now() + silence;
    this.origin += silence; // the pause delays the rest of the schedule rather than bunching it
  }

  private failureDue(): boolean {
    const { cutAfter, errorAfter } = this.controls;
    if (cutAfter !== undefined && this.contentChunks >= cutAfter) return this.cut();
    if (errorAfter !== undefined && this.contentChunks >= errorAfter) return this.sendError();
    return false;
  }

  private end(): void {
    if (this.controls.cutAfter !== undefined) return void this.cut();
    if (this.controls.errorAfter !== undefined) return void this.sendError();
    this.stopped = true;
    if (this.ending.done === null) this.ex.res.end();
    else this.ex.res.end(this.ending.done);
  }

  private cut(): true {
    this.stopped = true;
    this.ex.cut();
    return true;
  }

  private sendError(): true {
    this.stopped = true;
    this.ex.res.end(this.ending.errorFrame());
    return true;
  }

  private stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}

/** Sends SSE response headers and streams `events` under the request's controls. */
export function streamEvents(
  ex: Exchange,
  events: Iterator<StreamEvent, void>,
  controls: Controls,
  ending: StreamEnding,
): void {
  const res = ex.res;
  // One cork around headers and the first batch: an unpaced stream leaves in a single write.
  res.cork();
  res.writeHead(200, {
    ...ex.baseHeaders(),
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
  });
  // Headers go out even before the first event, so a cut after 0 chunks is still a started stream.
  res.flushHeaders();
  new SseWriter(ex, events, controls, ending).pump();
  res.uncork();
}
