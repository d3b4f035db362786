import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { newRequestId } from './ids';

/** One request the simulator received, as `GET /_sim/requests` returns it. */
export interface LoggedRequest {
  /** The simulator's own id; also sent back in the family's request-id response header. */
  readonly id: string;
  /** The request's `x-request-id` header, or null. */
  readonly request_id: string | null;
  readonly method: string;
  /** The request target as received, query string included. */
  readonly path: string;
  /** Request headers, names lower-cased (as node:http delivers them). */
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON, the raw text when it is not JSON, or null when empty or still arriving. */
  body: unknown;
  /** ISO-8601 time the request line arrived. */
  readonly received_at: string;
  /** True once the simulator's response was completely written. */
  finished: boolean;
  /** True when the client closed the connection before the simulator finished its response. */
  aborted: boolean;
  /** The HTTP status sent, or null when no headers went out. */
  status: number | null;
}

/** Bounded ring buffer of the most recent requests; oldest entries are overwritten. */
export class RequestLog {
  private readonly ring: (LoggedRequest | undefined)[];
  private next = 0;
  private size = 0;

  constructor(readonly capacity = 2000) {
    this.ring = new Array<LoggedRequest | undefined>(capacity);
  }

  /** Records an entry and returns it, so the caller can update it as the exchange proceeds. */
  add(entry: LoggedRequest): LoggedRequest {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
    return entry;
  }

  /** Entries oldest first; only those whose `request_id` matches when one is given. */
  list(requestId?: string | null): LoggedRequest[] {
    const out: LoggedRequest[] = [];
    const start = (this.next - this.size + this.capacity) % this.capacity;
    for (let i = 0; i < this.size; i++) {
      const entry = this.ring[(start + i) % this.capacity];
      if (entry && (requestId == null || entry.request_id === requestId)) out.push(entry);
    }
    return out;
  }

  /** Forgets every entry; returns how many there were. */
  clear(): number {
    const n = this.size;
    this.ring.fill(undefined);
    this.next = 0;
    this.size = 0;
    return n;
  }
}

/** A fresh, unfinished log entry for a request that just arrived. */
export function entryFor(req: IncomingMessage): LoggedRequest {
  const requestId = req.headers['x-request-id'];
  return {
    id: newRequestId(),
    request_id: typeof requestId === 'string' ? requestId : null,
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: req.headers,
    body: null,
    received_at: new Date().toISOString(),
    finished: false,
    aborted: false,
    status: null,
  };
}
