/** What the gateway is told of each tool call it relayed, for the ledger and the metrics. */
/** How a call ended, in the gateway's outcome words (the usage record's, the metrics'). */
export type CallOutcome = 'ok' | 'vendor_error' | 'upstream_error' | 'client_closed';

export interface EndedCall {
  readonly server: string;
  /** The server's own name for the tool. */
  readonly tool: string;
  /** The name the client called it by, `<server>__<tool>`. */
  readonly name: string;
  readonly outcome: CallOutcome;
  readonly ms: number;
}

export interface CallRecorder {
  /**
   * Told of a call the gateway refused itself (a tool the key may not use, a budget spent): the server was
   * never asked, so it leaves no usage record, but the request's access line and span say so.
   */
  refused(name: string): void;
  /** Told of each call the gateway sent (or tried to send) to its server, once, when it ended. */
  ended(call: EndedCall): void;
}
