/**
 * The gate a poll passes just before it goes to the upstream, under the task's lease: the upstream's
 * `poll.concurrency` and `poll.per_second`. It is taken after the lease, not before, so polls that are
 * dropped (the task was polled meanwhile by another poller) spend none of the cap.
 */
import Bottleneck from 'bottleneck';

/** Caps of one upstream's polls. */
export interface PollCaps {
  readonly concurrency: number;
  /** 0 for no rate cap. */
  readonly perSecond: number;
}

export interface PollGate {
  /** Resolves when a poll may start, with the function to call once it is over. */
  take(): Promise<() => void>;
  /** Refuses every poll waiting and to come. */
  close(): Promise<void>;
}

/** Builds the gate of each upstream's polls (by its `upstreams:` name). */
export type PollGates = (upstream: string, caps: PollCaps) => PollGate;

/** Each instance with its own caps: what a gateway without Redis does. */
export const localPollGates: PollGates = (_upstream, caps) => new LocalPollGate(caps);

/**
 * Polls start at least 1/perSecond apart, plus a tenth: requests sent evenly still arrive bunched by the
 * network and the event loop, and the cap holds for any second the upstream counts, not only on average.
 */
const RATE_MARGIN = 1.1;

/** The spacing between poll starts that keeps `perSecond` in any second; 0 for none. */
export const pollSpacingMs = (perSecond: number): number =>
  perSecond > 0 ? Math.ceil((1000 / perSecond) * RATE_MARGIN) : 0;

const settings = (caps: PollCaps): Bottleneck.ConstructorOptions => ({
  maxConcurrent: Math.max(1, caps.concurrency),
  minTime: pollSpacingMs(caps.perSecond),
});

/** This process's caps alone. */
export class LocalPollGate implements PollGate {
  private readonly limiter: Bottleneck;

  constructor(caps: PollCaps) {
    this.limiter = new Bottleneck(settings(caps));
  }

  take(): Promise<() => void> {
    return new Promise((granted, refused) => {
      // The job holds its place until the poll is over: that is what `maxConcurrent` counts.
      this.limiter.schedule(() => new Promise<void>((over) => granted(() => over()))).catch(refused);
    });
  }

  /** New caps for polls not yet started (the fallback of a shared gate, as instances come and go). */
  resize(caps: PollCaps): void {
    this.limiter.updateSettings(settings(caps));
  }

  /** Refuses the waiting polls at once; polls under way are the poller's to wait for, not the gate's. */
  close(): Promise<void> {
    void this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
    return Promise.resolve();
  }
}
