/**
 * The tool calls this instance is relaying, by session and the client's request id, so that the
 * client's `notifications/cancelled` (which arrives as a request of its own) stops the right one. Kept
 * across reloads: a call outlives the snapshot it started under.
 */
export class CallsUnderWay {
  private readonly calls = new Map<string, AbortController>();

  /** A signal that aborts when the client cancels the call; `done` forgets it. */
  start(session: string, requestId: string | number): { signal: AbortSignal; done: () => void } {
    const name = `${session} ${String(requestId)}`;
    const controller = new AbortController();
    this.calls.set(name, controller);
    return { signal: controller.signal, done: () => this.calls.delete(name) };
  }

  /** Stops the call, if it is under way here; false when it is not (ended, or on another instance). */
  cancel(session: string, requestId: string | number, reason: string): boolean {
    const controller = this.calls.get(`${session} ${String(requestId)}`);
    controller?.abort(new Error(reason));
    return controller !== undefined;
  }

  get size(): number {
    return this.calls.size;
  }
}
