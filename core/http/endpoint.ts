import type { GatewayContext } from '../context';
import type { ModelSpec } from '../plugin';

/** The last stage of a request: what runs after the pipeline passed it on. */
export type Handler = (ctx: GatewayContext) => Promise<void>;

/** One client-facing route. */
export interface Endpoint {
  /** Stable id, e.g. `chat-completions`; model tables refer to it. */
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Absolute path; `:name` segments are parameters (`/v1/videos/generations/:id`). */
  readonly path: string;
  /** True when the body's `model` picks the upstream (model-router resolves `ctx.target`). */
  readonly routedByModel: boolean;
  /** For an endpoint routed by model: whether it accepts `model` (else 404 naming the endpoints that do). */
  serves?(model: ModelSpec): boolean;
  readonly handle: Handler;
}

/** `POST /v1/chat/completions`: how messages name an endpoint to a client. */
export const describeEndpoint = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method} ${e.path}`;
