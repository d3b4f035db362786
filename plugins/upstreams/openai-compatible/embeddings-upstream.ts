/**
 * The embeddings part of an OpenAI-compatible family: its embedding models, the checks of a request, and
 * the request the vendor gets. The client's bytes go upstream as sent unless something had to change:
 * the model's upstream name, or `encoding_format: base64` for a vendor that answers only in floats (the
 * gateway then encodes the vectors itself, EmbeddingsResponseReader).
 */
import type { FamilyRequest } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import type { ModelLimits, ModelSpec, UpstreamRequest } from '../../../core/kit/upstream';
import { inputTokens } from '../../apis/embedding-input';
import {
  embeddingFields,
  EmbeddingsApi,
  validateEmbeddingsRequest,
  type EmbeddingFieldTable,
  type EmbeddingModelFacts,
} from '../../apis/embeddings';
import { ApiPart, sentBytes, type PartTarget } from './api-part';
import { EmbeddingsResponseReader } from './embeddings-reader';

/** What a family declares of its vendor's embeddings, beside its chat (ChatFamilySpec.embeddings). */
export interface EmbeddingsFamilySpec {
  /** Which of the API's fields, and which forms of `input`, the family takes. */
  readonly fields: EmbeddingFieldTable;
  /** Each embedding model with what its vendor documents of it. */
  readonly models: Readonly<Record<string, EmbeddingModelFacts>>;
  /** The vendor's ceilings for every embedding model (inputs a call). */
  readonly limits: ModelLimits;
  /**
   * `native`: the vendor answers `encoding_format: base64` itself. `gateway`: it answers only in floats
   * (or its base64 is undocumented), so it is asked for its default, floats, and the gateway encodes.
   */
  readonly base64: 'native' | 'gateway';
}

/** Where the vendor is reached and who owns the models, from the family's other settings. */
export interface EmbeddingsTarget extends PartTarget {
  readonly vendor: string;
  readonly created: number;
}

export class EmbeddingsPart extends ApiPart {
  constructor(
    private readonly spec: EmbeddingsFamilySpec,
    target: EmbeddingsTarget,
  ) {
    const models = Object.keys(spec.models).map((id) => ({
      id,
      api: EmbeddingsApi,
      created: target.created,
      ownedBy: target.vendor,
      limits: spec.limits,
    }));
    super(EmbeddingsApi, models, embeddingFields(spec.fields), target);
  }

  async prepare(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest> {
    const body = await ctx.json();
    validateEmbeddingsRequest(body, this.fields, model, this.factsOf(model.id));
    const encodeHere = body.encoding_format === 'base64' && this.spec.base64 === 'gateway';
    const changed = upstreamModel !== model.id || encodeHere;
    const input = body.input;
    return this.request(
      await sentBytes(ctx, changed ? upstreamBody(body, upstreamModel, encodeHere) : undefined),
      new EmbeddingsResponseReader(encodeHere, () => inputTokens(input)),
    );
  }

  /** A model the family does not list (a route may name another's): nothing to check, the vendor decides. */
  private factsOf(model: string): EmbeddingModelFacts {
    return this.spec.models[model] ?? { maxInputTokens: Number.POSITIVE_INFINITY };
  }
}

/**
 * The body the vendor gets when it differs from the client's: its model name, and without
 * `encoding_format` where the gateway encodes (the vendor's default is floats; whether it would refuse or
 * ignore `base64` is not relied on).
 */
function upstreamBody(body: JsonObject, upstreamModel: string, encodeHere: boolean): JsonObject {
  const sent: JsonObject = { ...body, model: upstreamModel };
  if (encodeHere) delete sent.encoding_format;
  return sent;
}
