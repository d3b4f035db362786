/** A task upstream (video): how the gateway submits a task to it and polls the task until it ends. */
import type { JsonObject } from '../base/json';
import type { TaskError, TaskParams, TaskUsage } from '../stores/video-task';
import type { ModelSpec } from './api';

/** How often and how hard the poller may ask one upstream about its tasks. Durations in ms. */
export interface PollPolicy {
  /** The first interval between polls of a task; later ones back off by half again, up to `maxEveryMs`. */
  readonly everyMs: number;
  readonly maxEveryMs: number;
  /** A task not finished this long after submit fails with `deadline_exceeded`. */
  readonly deadlineMs: number;
  /** Polls in flight at once to this upstream, per gateway instance. */
  readonly concurrency: number;
  /** Polls started per second to this upstream, per gateway instance; 0 for no limit. */
  readonly perSecond: number;
}

/** The upstream's answer to a submit: the task it accepted, or its refusal, passed on to the client. */
export type SubmitOutcome =
  | { readonly accepted: true; readonly upstreamTaskId: string }
  | {
      readonly accepted: false;
      readonly status: number;
      readonly contentType: string;
      readonly body: Buffer;
    };

/**
 * What one poll learnt. `unknown` (the upstream does not know the task, or answered in a way that
 * settles nothing) is not a failure: the task is polled again until its deadline.
 */
export type PollOutcome =
  | { readonly state: 'queued' | 'running' | 'unknown' }
  | { readonly state: 'succeeded'; readonly videoUrl: string; readonly usage: TaskUsage }
  | { readonly state: 'failed' | 'cancelled'; readonly error: TaskError };

/** A task upstream: checks the native body, submits it, and reads the upstream task's state. */
export interface TaskUpstream {
  readonly polling: PollPolicy;
  /** Checks what the gateway needs from the native body (400 naming the field); returns the billing facts. */
  check(body: JsonObject, model: ModelSpec): TaskParams;
  /**
   * The most a task with these parameters can produce, priced to hold a key's budget while it runs: the
   * duration asked (or the model's ceiling), the resolution asked (or the largest), and for families
   * billed in tokens the tokens that makes.
   */
  estimate(params: TaskParams, model: ModelSpec): TaskUsage;
  /**
   * Sends the client's body (renamed to `upstreamModel` if the route says so). Throws 502/504 on transport
   * failure. `traceparent`, when the submit is traced, names its span: send it as the header.
   */
  submit(
    body: JsonObject,
    raw: Buffer,
    upstreamModel: string,
    requestId: string,
    traceparent?: string,
  ): Promise<SubmitOutcome>;
  /**
   * Reads the upstream task once. Throws on a transient failure (transport, 5xx, 429). `requestId` is the
   * submit's, to send as `x-request-id`; `traceparent`, when the poll is traced, names its span.
   */
  poll(upstreamTaskId: string, requestId?: string, traceparent?: string): Promise<PollOutcome>;
}
