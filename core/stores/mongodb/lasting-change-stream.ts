/**
 * A change stream kept open for as long as someone listens. The driver resumes by itself after a
 * resumable error, but gives up on the rest, and after an invalidate (the collection dropped or renamed)
 * it only closes. Here any end that was not asked for reopens the stream after the last resume token
 * (`startAfter`, which also starts after an invalidate), waiting longer after each failure in a row, and
 * says so in the log. A token the server can no longer resume from is dropped: the stream starts from
 * now, and the poller's sweep covers what happened in between.
 */
import {
  MongoServerError,
  type ChangeStream,
  type ChangeStreamDocument,
  type Collection,
  type Document,
  type ResumeToken,
} from 'mongodb';
import type { Logger } from 'pino';

/** Codes after which the resume token is of no use: history lost, fatal, invalid token. */
const TOKEN_LOST_CODES = new Set([286, 280, 260]);
const REOPEN_FIRST_MS = 1_000;
const REOPEN_MAX_MS = 30_000;

export interface LastingStreamOptions<T extends Document> {
  readonly pipeline: Document[];
  readonly fullDocument?: 'updateLookup';
  readonly onChange: (change: ChangeStreamDocument<T>) => void;
  readonly logger: Logger;
  /** Names the stream in the log. */
  readonly name: string;
}

export class LastingChangeStream<T extends Document> {
  private stream: ChangeStream<T> | undefined;
  /** Unknown to the driver's types (`unknown`); undefined until a stream answers, or once it is of no use. */
  private token: ResumeToken;
  private reopenTimer: NodeJS.Timeout | undefined;
  /** Ends in a row without a stream that answered; sets the wait before the next reopen. */
  private failures = 0;
  private stopped = false;
  /** Settles once the current stream has answered its open (or failed to). */
  private openedNow: Promise<void> = Promise.resolve();

  constructor(
    private readonly collection: Collection<T>,
    private readonly options: LastingStreamOptions<T>,
  ) {
    this.open();
  }

  /** Resolves once the stream now being opened has answered, so changes made after it are seen. */
  opened(): Promise<void> {
    return this.openedNow;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reopenTimer);
    await this.stream?.close().catch(() => undefined);
  }

  private open(): void {
    const { pipeline, fullDocument } = this.options;
    const stream = this.collection.watch<T, ChangeStreamDocument<T>>(pipeline, {
      ...(fullDocument ? { fullDocument } : {}),
      ...(this.token !== undefined ? { startAfter: this.token } : {}),
    });
    this.stream = stream;
    let ended = false;
    const end = (reason: unknown): void => {
      if (ended) return; // an error is followed by a close: one reopen
      ended = true;
      stream.close().catch(() => undefined);
      if (!this.stopped) this.scheduleReopen(reason);
    };
    this.openedNow = new Promise<void>((resolve) => {
      stream.once('resumeTokenChanged', () => resolve());
      stream.once('error', () => resolve());
      stream.once('close', () => resolve());
    });
    stream.on('resumeTokenChanged', (token: ResumeToken) => {
      this.token = token ?? this.token;
      this.failures = 0;
    });
    stream.on('change', (change) => {
      if (!this.stopped) this.options.onChange(change);
    });
    stream.on('error', (e) => {
      if (e instanceof MongoServerError && TOKEN_LOST_CODES.has(Number(e.code))) this.token = undefined;
      end(e);
    });
    stream.on('close', () => end(undefined));
    stream.on('end', () => end(undefined));
  }

  private scheduleReopen(reason: unknown): void {
    const wait = Math.min(REOPEN_MAX_MS, REOPEN_FIRST_MS * 2 ** this.failures);
    this.failures++;
    this.options.logger.warn(
      { err: reason, stream: this.options.name, reopen_in_ms: wait, resumes: this.token !== undefined },
      reason === undefined ? 'change stream closed; reopening' : 'change stream failed; reopening',
    );
    this.reopenTimer = setTimeout(() => {
      if (!this.stopped) this.open();
    }, wait).unref();
  }
}
