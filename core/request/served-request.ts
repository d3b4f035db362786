/**
 * A request as core serves it: what plugins see of it (GatewayContext), and the connection, the
 * measurements and the pipeline's progress, which only core reads and writes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EndpointInfo } from '../contracts/api';
import type { ServiceCall } from '../contracts/service';
import type { GatewayContext, Outcome, StageAnswer } from '../contracts/context';
import type { Observed } from './observed';
import type { RequestTrace } from './request-trace';

export interface ServedRequest extends GatewayContext {
  status: number;
  outcome: Outcome;
  answeredBy: string | undefined;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly endpoint: Endpoint;
  /** How many pipeline stages the request entered; their finish phases run, and they see its answer. */
  stagesReached: number;
  /** What was measured and decided about this request, for the access log and the metrics. */
  readonly observed: Observed;
  readonly trace: RequestTrace | undefined;
  /** What a service endpoint's request called (ServiceExchange.called), for the access line. */
  called: ServiceCall | undefined;
  /** A stage's answer, waiting for the pipeline to write it (see GatewayContext.answer). */
  readonly stageReply: StageReply | undefined;
}

/** A stage's answer and the stage that gave it: only the stages before it see the answer. */
export interface StageReply {
  readonly answer: StageAnswer;
  /** The index of the stage that answered, in the pipeline. */
  readonly stage: number;
}

/** The last stage of a request: what runs after the pipeline passed it on. */
export type Handler = (ctx: ServedRequest) => Promise<void>;

/** One client-facing route. */
export interface Endpoint extends EndpointInfo {
  readonly handle: Handler;
  /** Validates the request as `handle` would before calling the upstream (GatewayContext.check). */
  readonly check?: Handler;
}
