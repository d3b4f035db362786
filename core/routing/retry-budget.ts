/**
 * The retry budget (Envoy's retry_budget): retries in flight may be at most max(min, percent % of the
 * requests in flight). When an upstream fails for everyone at once, retries then add a bounded share of
 * load to the fallbacks instead of doubling it.
 */
export interface RetryBudgetOptions {
  readonly percent: number;
  readonly min: number;
}

export class RetryBudget {
  private requests = 0;
  private retries = 0;

  constructor(private options: RetryBudgetOptions) {}

  configure(options: RetryBudgetOptions): void {
    this.options = options;
  }

  /** A request began: it counts towards the budget's base until `requestEnded`. */
  requestStarted(): void {
    this.requests++;
  }

  requestEnded(): void {
    this.requests--;
  }

  /** Takes a retry from the budget, or false when the budget is spent; a taken one is given back by `retryEnded`. */
  tryRetry(): boolean {
    const { percent, min } = this.options;
    if (this.retries >= Math.max(min, Math.floor((this.requests * percent) / 100))) return false;
    this.retries++;
    return true;
  }

  retryEnded(): void {
    this.retries--;
  }

  get inFlight(): { requests: number; retries: number } {
    return { requests: this.requests, retries: this.retries };
  }
}
