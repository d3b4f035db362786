/** What the MCP server made for one client request serves from, and whom for. */
import type { Logger } from 'pino';
import type { CallsUnderWay } from './calls-under-way';
import type { SessionState } from './session-token';
import type { CallRecorder } from './call-recorder';
import type { Listed } from './listed';
import type { NamedServer } from './upstream-client';
import type { UpstreamLinks } from './upstream-links';

export interface FrontRequest {
  readonly servers: readonly NamedServer[];
  /** Undefined while the session is being opened (`initialize`). */
  readonly session: SessionState | undefined;
  readonly links: UpstreamLinks;
  /** Whether the configuration exposes the server's own tool `tool` at all. */
  exposes(server: NamedServer, tool: string): boolean;
  /** Whether the caller's key (and its team) may use the tool of this gateway name. */
  allows(name: string): boolean;
  readonly calls: CallsUnderWay;
  /** Aborts when the client goes before its answer is complete: nobody is left to relay a call to. */
  readonly gone: AbortSignal;
  readonly recorder: CallRecorder;
  /**
   * Admits a call to the tool of this gateway name under the budgets of the caller's key and team (a
   * priced tool holds its price until the call ends: call the result then); throws an RpcError when a
   * budget is spent.
   */
  admit(name: string): Promise<() => void>;
  /** What each server listed: its tools for the metrics' labels, its resources' URIs to read them there. */
  readonly listed: Listed;
  /** Runs a call to a server as a CLIENT span of the request's trace, when it is traced. */
  traced<T>(name: string, attributes: Readonly<Record<string, string>>, work: () => Promise<T>): Promise<T>;
  readonly logger: Logger;
}
