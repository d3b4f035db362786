/**
 * Faults set on the simulator as a whole (not per request, as the `x-sim-*` controls are), so a test can
 * make one upstream fail while another, or a retry of the same request, succeeds: answer a status, hang
 * without answering, reset the connection before the headers, or cut a stream after some chunks.
 * Set over `/_sim/faults` or on the running simulator; each applies to the requests it matches, for
 * `times` requests or until cleared.
 */
import { isRecord } from './is-record';

/** Which requests a fault applies to; an empty match applies to all. */
export interface FaultMatch {
  /** The request path starts with it, e.g. `/modela/`. */
  readonly path_prefix?: string;
  /** The body's `model`. */
  readonly model?: string;
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

  /** The fault for a request, counted as met (and dropped once spent), or undefined. */
  take(path: string, body: unknown): FaultAction | undefined {
    if (this.list.length === 0) return undefined; // the usual case: no work at all
    const model = isRecord(body) && typeof body.model === 'string' ? body.model : undefined;
    const fault = this.list.find(
      (f) =>
        (f.match?.path_prefix === undefined || path.startsWith(f.match.path_prefix)) &&
        (f.match?.model === undefined || f.match.model === model),
    );
    if (!fault) return undefined;
    fault.hits++;
    if (fault.times !== undefined && fault.hits >= fault.times)
      this.list = this.list.filter((f) => f !== fault);
    return fault.fault;
  }
}

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
  };
  if (Object.values(action).every((v) => v === undefined || v === false)) {
    throw new Error("'fault' must set one of status, hang, reset, cut_after");
  }
  return {
    match: {
      path_prefix: optionalString(match.path_prefix, 'match.path_prefix'),
      model: optionalString(match.model, 'match.model'),
    },
    fault: action,
    times: count(times, 'times', 1, 1_000_000_000),
  };
}
