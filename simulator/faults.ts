/**
 * Faults set on the simulator as a whole (not per request, as the `x-sim-*` controls are), so a test can
 * make one upstream fail while another, or a retry of the same request, succeeds: answer a status, hang
 * without answering, reset the connection before the headers, cut a stream after some chunks, answer
 * a canned reply (a vendor's answer, byte for byte, from a test's golden fixture), or answer late. They
 * apply on any path, the MCP server's `/mcp` included.
 * Set over `/_sim/faults` or on the running simulator; each applies to the requests it matches, for
 * `times` requests or until cleared.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { Params } from '../lib/router';
import { isRecord } from './is-record';

/** Which requests a fault applies to; an empty match applies to all. */
export interface FaultMatch {
  /** The request path starts with it, e.g. `/modela/`. */
  readonly path_prefix?: string;
  /**
   * The request's model: the route's `:model` path parameter where its path carries one (Gemini's
   * `/models/:model:generateContent`), else the body's `model`.
   */
  readonly model?: string;
  /**
   * The request's method, e.g. `POST`: an MCP client also opens a GET stream, unawaited, which a fault
   * for its calls must not meet first.
   */
  readonly method?: string;
}

/** What happens instead of (or, for `cut_after`, during) the normal answer. */
export interface FaultAction {
  /** Answer this status (400–599) with the family's error body. */
  readonly status?: number;
  /** Never answer (until the client gives up). */
  readonly hang?: boolean;
  /** Destroy the connection before any response byte. */
  readonly reset?: boolean;
  /** Streams: close the connection after this many content chunks (the `cut_after` control). */
  readonly cut_after?: number;
  /** Answer exactly this, in place of the family's own answer (see canned-reply.ts). */
  readonly reply?: CannedReply;
  /**
   * Wait this long before anything else: the normal answer when it is the only fault, else the other
   * fault (a late status, a late reply). For clients that send no `x-sim-latency-ms`, such as MCP's.
   */
  readonly delay_ms?: number;
}

/**
 * A whole answer given by the test: any status, any content type, the body as text or as base64 bytes.
 * The simulator serves it without reading it, so a fixture can hold what no family would produce.
 */
export interface CannedReply {
  /** 200–599; a canned answer may be a success. */
  readonly status: number;
  readonly content_type: string;
  /** The body as UTF-8 text; at most one of `body` and `body_base64`, neither for an empty body. */
  readonly body?: string;
  readonly body_base64?: string;
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface FaultSpec {
  readonly match?: FaultMatch;
  readonly fault: FaultAction;
  /** How many requests it applies to; absent: until cleared. */
  readonly times?: number;
}

/** A fault as listed: its spec, and how many matching requests it has met. */
export interface ActiveFault extends FaultSpec {
  readonly id: number;
  hits: number;
}

export class Faults {
  private list: ActiveFault[] = [];
  private nextId = 1;

  /** Adds a fault; throws a message naming the first bad field. */
  add(spec: unknown): ActiveFault {
    const fault: ActiveFault = { ...checkSpec(spec), id: this.nextId++, hits: 0 };
    this.list.push(fault);
    return fault;
  }

  clear(): number {
    const n = this.list.length;
    this.list = [];
    return n;
  }

  all(): readonly ActiveFault[] {
    return this.list;
  }

  /**
   * The fault for a `method` request to `path` for `model` (see {@link requestModel}), counted as met (and
   * dropped once spent), or undefined.
   */
  take(path: string, model: string | undefined, method: string): FaultAction | undefined {
    if (this.list.length === 0) return undefined; // the usual case: no work at all
    const fault = this.list.find(
      (f) =>
        (f.match?.path_prefix === undefined || path.startsWith(f.match.path_prefix)) &&
        (f.match?.model === undefined || f.match.model === model) &&
        (f.match?.method === undefined || f.match.method === method),
    );
    if (!fault) return undefined;
    fault.hits++;
    if (fault.times !== undefined && fault.hits >= fault.times)
      this.list = this.list.filter((f) => f !== fault);
    return fault.fault;
  }
}

/**
 * The model a request names, as a fault matches it: the route's `model` path parameter when the route
 * has one (percent-decoded), else the body's `model`. A vendor that puts the model in the path reads no
 * `model` from its body, so the body's would be the wrong one to match, or none at all.
 */
export function requestModel(params: Params | undefined, body: unknown): string | undefined {
  if (params && Object.hasOwn(params, 'model')) return params.model;
  return isRecord(body) && typeof body.model === 'string' ? body.model : undefined;
}

/** As the `x-sim-latency-ms` control's cap: a typo must not ask for an hour. */
const MAX_DELAY_MS = 600_000;

function checkSpec(spec: unknown): FaultSpec {
  if (!isRecord(spec) || !isRecord(spec.fault)) throw new Error("a fault needs an object 'fault'");
  const { match = {}, fault, times } = spec;
  if (!isRecord(match)) throw new Error("'match' must be an object");
  const optionalString = (v: unknown, name: string): string | undefined => {
    if (v !== undefined && typeof v !== 'string') throw new Error(`'${name}' must be a string`);
    return v;
  };
  const count = (v: unknown, name: string, min: number, max: number): number | undefined => {
    if (v !== undefined && (!Number.isInteger(v) || (v as number) < min || (v as number) > max)) {
      throw new Error(`'${name}' must be an integer from ${min} to ${max}`);
    }
    return v as number | undefined;
  };
  const flag = (v: unknown, name: string): boolean | undefined => {
    if (v !== undefined && typeof v !== 'boolean') throw new Error(`'${name}' must be true or false`);
    return v;
  };
  const action: FaultAction = {
    status: count(fault.status, 'fault.status', 400, 599),
    hang: flag(fault.hang, 'fault.hang'),
    reset: flag(fault.reset, 'fault.reset'),
    cut_after: count(fault.cut_after, 'fault.cut_after', 0, 1_000_000),
    reply: fault.reply === undefined ? undefined : checkReply(fault.reply),
    delay_ms: count(fault.delay_ms, 'fault.delay_ms', 0, MAX_DELAY_MS),
  };
  const set = Object.values(action).filter((v) => v !== undefined && v !== false).length;
  if (set === 0) throw new Error("'fault' must set one of status, hang, reset, cut_after, reply, delay_ms");
  // A reply is a whole answer: combined with another fault, which one wins would be a guess. A delay only
  // comes first.
  if (action.reply && set - (action.delay_ms === undefined ? 0 : 1) > 1) {
    throw new Error("'fault.reply' cannot be combined with another fault but delay_ms");
  }
  return {
    match: {
      path_prefix: optionalString(match.path_prefix, 'match.path_prefix'),
      model: optionalString(match.model, 'match.model'),
      method: optionalString(match.method, 'match.method')?.toUpperCase(),
    },
    fault: action,
    times: count(times, 'times', 1, 1_000_000_000),
  };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function checkReply(reply: unknown): CannedReply {
  if (!isRecord(reply)) throw new Error("'fault.reply' must be an object");
  const { status = 200, content_type = 'application/json', body, body_base64, headers = {} } = reply;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599) {
    throw new Error("'fault.reply.status' must be an integer from 200 to 599");
  }
  if (typeof content_type !== 'string' || content_type === '') {
    throw new Error("'fault.reply.content_type' must be a non-empty string");
  }
  if (body !== undefined && typeof body !== 'string') throw new Error("'fault.reply.body' must be a string");
  if (body_base64 !== undefined && (typeof body_base64 !== 'string' || !BASE64.test(body_base64))) {
    throw new Error("'fault.reply.body_base64' must be a base64 string");
  }
  if (body !== undefined && body_base64 !== undefined) {
    throw new Error("'fault.reply' takes one of body and body_base64");
  }
  if (!isRecord(headers) || !Object.values(headers).every((v) => typeof v === 'string')) {
    throw new Error("'fault.reply.headers' must map names to strings");
  }
  for (const [name, value] of Object.entries(headers as Record<string, string>)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      throw new Error(`'fault.reply.headers' has an invalid header ${JSON.stringify(name)}`);
    }
  }
  return {
    status: status as number,
    content_type,
    ...(body !== undefined ? { body } : {}),
    ...(body_base64 !== undefined ? { body_base64 } : {}),
    headers: headers as Record<string, string>,
  };
}
