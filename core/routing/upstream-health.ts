/**
 * Outlier ejection, per upstream name (as Envoy's consecutive-5xx detector): an upstream that fails
 * `consecutive_failures` times in a row is left out of routing for `base`, doubling each time it is
 * ejected again, up to `max`; the doubling starts over once it has gone `max` without an ejection.
 * Failures are counted by this instance alone; ejections may also arrive from other instances
 * (shared-ejections.ts), and an ejected upstream returns by itself when its time is up.
 */
import type { EjectionView } from './catalogue';

export interface EjectionOptions {
  /** 0 disables ejection. */
  readonly consecutiveFailures: number;
  readonly baseMs: number;
  readonly maxMs: number;
}

/** One ejection, as logged, shared and shown to operators. */
export interface Ejection {
  readonly upstream: string;
  readonly until: number;
  /** How many times in a row (without a quiet `max` between) it has been ejected, this one included. */
  readonly times: number;
}

/** Told of each change of service, so it can be logged and shared. */
export interface HealthListener {
  ejected(ejection: Ejection, failures: number): void;
  returned(upstream: string): void;
}

interface State {
  failures: number;
  /** When the ejection ends; 0 while in service. */
  until: number;
  times: number;
  /** When the last ejection ended (or is due to), for the reset of `times`. */
  lastUntil: number;
}

/** An upstream's figures for operators (GET /admin/upstreams). */
export interface HealthView {
  readonly consecutive_failures: number;
  readonly ejected_until: string | null;
  readonly times_ejected: number;
}

export class UpstreamHealth implements EjectionView {
  private readonly states = new Map<string, State>();
  private ejected = 0;

  constructor(
    private options: EjectionOptions,
    private readonly listener: HealthListener,
  ) {}

  configure(options: EjectionOptions): void {
    this.options = options;
  }

  get ejectedCount(): number {
    return this.ejected;
  }

  /** When `upstream` returns to service, or 0 when it is in service (returning it if its time is up). */
  ejectedUntil(upstream: string, now: number): number {
    const state = this.states.get(upstream);
    if (!state || state.until === 0) return 0;
    if (state.until > now) return state.until;
    state.until = 0;
    this.ejected--;
    this.listener.returned(upstream);
    return 0;
  }

  /** An answer that is not a failure: the run of failures is broken. A Map lookup when healthy. */
  success(upstream: string): void {
    const state = this.states.get(upstream);
    if (state) state.failures = 0;
  }

  /** A failure; ejects the upstream when it completes the run. Failures while ejected do not count. */
  failure(upstream: string, now: number): void {
    let state = this.states.get(upstream);
    if (!state) this.states.set(upstream, (state = { failures: 0, until: 0, times: 0, lastUntil: 0 }));
    if (this.ejectedUntil(upstream, now) !== 0) return;
    state.failures++;
    const { consecutiveFailures, baseMs, maxMs } = this.options;
    if (consecutiveFailures === 0 || state.failures < consecutiveFailures) return;
    if (state.lastUntil !== 0 && now - state.lastUntil >= maxMs) state.times = 0;
    const until = now + Math.min(baseMs * 2 ** state.times, maxMs);
    const failures = state.failures;
    this.eject(state, until, state.times + 1);
    this.listener.ejected({ upstream, until, times: state.times }, failures);
  }

  /** An ejection decided by another instance: applied unless this one already keeps it out longer. */
  apply(ejection: Ejection, now: number): boolean {
    if (ejection.until <= now) return false;
    let state = this.states.get(ejection.upstream);
    if (!state) {
      this.states.set(ejection.upstream, (state = { failures: 0, until: 0, times: 0, lastUntil: 0 }));
    }
    if (state.until >= ejection.until) return false;
    this.eject(state, ejection.until, Math.max(state.times, ejection.times));
    return true;
  }

  /** Every upstream that has failed or been ejected since start. */
  view(now: number): Map<string, HealthView> {
    const out = new Map<string, HealthView>();
    for (const [name, state] of this.states) {
      const until = this.ejectedUntil(name, now);
      out.set(name, {
        consecutive_failures: state.failures,
        ejected_until: until === 0 ? null : new Date(until).toISOString(),
        times_ejected: state.times,
      });
    }
    return out;
  }

  private eject(state: State, until: number, times: number): void {
    if (state.until === 0) this.ejected++;
    state.until = until;
    state.lastUntil = until;
    state.times = times;
    // A returning upstream starts a new run: one failure after it is not yet the next ejection.
    state.failures = 0;
  }
}
