/** A fixed-window request counter. The in-process one is below; a Redis one shares the budget across instances. */
export interface WindowHit {
  /** Requests counted in the current window, this one included. */
  readonly count: number;
  /** Milliseconds until the window ends. */
  readonly resetInMs: number;
}

export interface CounterStore {
  hit(subject: string, windowMs: number): WindowHit | Promise<WindowHit>;
}
