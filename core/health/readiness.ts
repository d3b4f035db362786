/**
 * Whether this instance should get traffic: `GET /readyz` asks `ready()`, `GET /admin/health` shows
 * `view()`. Not ready while starting, at once and for good from the moment shutdown begins (so a load
 * balancer stops sending before the listener closes), and while any check is failing. A degraded check
 * (Redis down, with its local fallback serving) is shown to operators but leaves the instance ready.
 *
 * Checks are probed on demand, at most once per `cacheMs` however often the endpoints are asked, and
 * one probe at a time: a load balancer polling every instance every second costs one ping a second.
 */
import type { Logger } from 'pino';

export type CheckState = 'ok' | 'degraded' | 'failing';

export interface CheckResult {
  readonly state: CheckState;
  /** Why it is not ok; for a degraded check, also what the gateway does instead. */
  readonly reason?: string;
}

export interface ReadinessCheck {
  readonly name: string;
  probe(): CheckResult | Promise<CheckResult>;
}

export interface CheckView extends CheckResult {
  /** When the check entered this state (ISO). */
  readonly since: string;
}

export type Phase = 'starting' | 'serving' | 'draining';

export interface ReadinessView {
  readonly status: 'ok' | 'unavailable';
  readonly phase: Phase;
  /** When the instance entered its phase (ISO). */
  readonly since: string;
  /** When the checks were last probed (ISO), or null before the first probe. */
  readonly checked_at: string | null;
  readonly checks: Readonly<Record<string, CheckView>>;
}

export interface ReadinessOptions {
  /** Probe results are reused this long (default 1 s). */
  readonly cacheMs?: number;
  /** A probe not answered by then counts as failing (default 2 s; checks keep their own, shorter limits). */
  readonly probeTimeoutMs?: number;
  readonly now?: () => number;
}

export class Readiness {
  private phase: Phase = 'starting';
  private phaseSince: number;
  private readonly states = new Map<string, CheckResult & { since: number }>();
  private checkedAt: number | undefined;
  private probing: Promise<void> | undefined;
  private readonly cacheMs: number;
  private readonly probeTimeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly logger: Logger,
    options: ReadinessOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 1_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.phaseSince = this.now();
  }

  /** Start-up is complete: ready from now on while the checks pass. */
  serving(): void {
    if (this.phase === 'starting') this.enter('serving');
  }

  /** Shutdown has begun: not ready from this moment on, whatever the checks say. */
  drain(): void {
    if (this.phase !== 'draining') this.enter('draining');
  }

  get draining(): boolean {
    return this.phase === 'draining';
  }

  /** True while serving with no check failing. Never probes once draining: the answer is known. */
  async ready(): Promise<boolean> {
    if (this.phase !== 'serving') return false;
    await this.refresh();
    return this.phase === 'serving' && !this.anyFailing();
  }

  /** Each check with its state, reason and since when, for operators. */
  async view(): Promise<ReadinessView> {
    await this.refresh();
    const checks: Record<string, CheckView> = {};
    for (const [name, { state, reason, since }] of this.states) {
      checks[name] = { state, ...(reason !== undefined ? { reason } : {}), since: iso(since) };
    }
    return {
      status: this.phase === 'serving' && !this.anyFailing() ? 'ok' : 'unavailable',
      phase: this.phase,
      since: iso(this.phaseSince),
      checked_at: this.checkedAt === undefined ? null : iso(this.checkedAt),
      checks,
    };
  }

  private enter(phase: Phase): void {
    this.phase = phase;
    this.phaseSince = this.now();
  }

  private anyFailing(): boolean {
    for (const { state } of this.states.values()) if (state === 'failing') return true;
    return false;
  }

  private refresh(): Promise<void> {
    if (this.checkedAt !== undefined && this.now() - this.checkedAt < this.cacheMs) return Promise.resolve();
    this.probing ??= this.probeAll().finally(() => (this.probing = undefined));
    return this.probing;
  }

  private async probeAll(): Promise<void> {
    const results = await Promise.all(this.checks.map((check) => this.probe(check)));
    const at = this.now();
    this.checks.forEach((check, i) => this.record(check.name, results[i]!, at));
    this.checkedAt = at;
  }

  /** A check that throws or does not answer in time is failing, with that as its reason. */
  private async probe(check: ReadinessCheck): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(
        () => resolve({ state: 'failing', reason: `no answer within ${this.probeTimeoutMs} ms` }),
        this.probeTimeoutMs,
      ).unref();
    });
    try {
      return await Promise.race([Promise.resolve().then(() => check.probe()), late]);
    } catch (e) {
      return { state: 'failing', reason: e instanceof Error ? e.message : String(e) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Keeps `since` while the state holds; logs a check that starts or stops failing, once each. */
  private record(name: string, result: CheckResult, at: number): void {
    const before = this.states.get(name);
    const since = before?.state === result.state ? before.since : at;
    this.states.set(name, { ...result, since });
    if (result.state === 'failing' && before?.state !== 'failing') {
      this.logger.error({ check: name, reason: result.reason }, `not ready: ${name}: ${result.reason ?? ''}`);
    } else if (before?.state === 'failing' && result.state !== 'failing') {
      this.logger.warn({ check: name }, `ready again: ${name} recovered`);
    }
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
