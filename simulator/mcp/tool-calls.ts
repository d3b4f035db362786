/**
 * The tool calls the simulator's MCP server has run, as `GET /_sim/mcp` shows them: which session called
 * which tool with what, how far a `slow` call got and how it ended. A test reads here what reached the tool
 * server (a tool a key may not call must never appear) and where a cancelled call stopped, with no timing.
 */

/** How a call ended; `running` until it does. */
export type ToolCallOutcome = 'running' | 'done' | 'error' | 'cancelled';

/** One tool call as the server ran it. */
export interface ToolCall {
  /** Numbered from 1 in the order calls started. */
  readonly id: number;
  /** The MCP session it came in on, or null. */
  readonly session: string | null;
  readonly tool: string;
  /** The arguments as the tool received them, defaults applied. */
  readonly arguments: unknown;
  /** Steps finished (`slow` counts one per progress step; other tools none). */
  steps: number;
  outcome: ToolCallOutcome;
}

/** The most recent calls, oldest dropped past `capacity`. */
export class ToolCalls {
  private calls: ToolCall[] = [];
  private nextId = 1;

  constructor(readonly capacity = 1000) {}

  /** Records a call that just started; the caller updates `steps` and `outcome` as it runs. */
  start(session: string | undefined, tool: string, args: unknown): ToolCall {
    const call: ToolCall = {
      id: this.nextId++,
      session: session ?? null,
      tool,
      arguments: args,
      steps: 0,
      outcome: 'running',
    };
    this.calls.push(call);
    if (this.calls.length > this.capacity) this.calls.shift();
    return call;
  }

  /** Calls oldest first; only those of `tool` when one is given. */
  list(tool?: string | null): ToolCall[] {
    return tool == null ? [...this.calls] : this.calls.filter((c) => c.tool === tool);
  }

  /** Forgets every call; returns how many there were. */
  clear(): number {
    const n = this.calls.length;
    this.calls = [];
    return n;
  }
}
