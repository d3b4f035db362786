/** An upstream family: the models it serves, and how it maps a client's request for its vendor. */
import type { ModelSpec } from './api';
import type { FamilyRequest } from './family-request';
import type { ResponseReader } from './reader';
import type { TaskUpstream } from './task-upstream';
import type { Upstream as BatchUpstream } from './batch-upstream';

/** What an upstream plugin asks the proxy to send. */
export interface UpstreamRequest {
  /**
   * Where to send it, built per request when the vendor wants it so: the model in the path, a query
   * string (`?alt=sse` for a stream). `upstreamUrl` in the kit joins the configured base URL and a path.
   */
  readonly url: URL;
  /** The upstream's credential and any headers it needs; they replace the client's of the same name. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body to send: the client's own bytes when nothing changed. */
  readonly body: Buffer;
  readonly reader: ResponseReader;
  /** Headers the gateway adds to the client's response, e.g. a deprecation warning about the request. */
  readonly responseHeaders?: Readonly<Record<string, string>>;
}

/**
 * A family of upstreams that speak one protocol. One instance per `upstreams:` entry in gateway.yaml.
 * A request/response family implements `prepare`; a task family (video) provides `tasks`.
 */
export interface UpstreamPlugin {
  readonly models: readonly ModelSpec[];
  /**
   * Validates the client's request for `model` (throwing a 400 GatewayError naming the field) and maps it
   * for the upstream, which knows the model as `upstreamModel`.
   */
  prepare?(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest>;
  readonly tasks?: TaskUpstream;
  /** The vendor's own batch API, where it has one and the family offers it (a batch's lines run there). */
  readonly batches?: BatchUpstream;
}
