import type { GatewayContext } from '../../../core/kit/plugin';
import type { ModelApi, ModelSpec, UpstreamRequest } from '../../../core/kit/upstream';

/**
 * One client API an OpenAI-compatible family serves (chat, embeddings): its models, and how a request of
 * that API is checked and mapped for the vendor. A family is the union of its parts.
 */
export interface ApiPart {
  readonly api: ModelApi;
  readonly models: readonly ModelSpec[];
  prepare(ctx: GatewayContext, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest>;
}
