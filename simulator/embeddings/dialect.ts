/**
 * How one vendor's OpenAI-compatible embeddings endpoint behaves, as data: its models and their vector
 * sizes, the input forms and encodings it takes, how many inputs a call, and the body it answers with.
 */

/** One embedding model: its default vector size, and the sizes `dimensions` may ask for. */
export interface SimEmbeddingModel {
  readonly defaultDimensions: number;
  readonly dimensions: { readonly from: number; readonly to: number } | { readonly oneOf: readonly number[] };
}

export interface EmbeddingsDialect {
  /** The route under the family's mount, e.g. `/v1/embeddings`. */
  readonly path: string;
  readonly models: Readonly<Record<string, SimEmbeddingModel>>;
  /** Whether `input` may be token ids (OpenAI's), or text only. */
  readonly takesTokens: boolean;
  /** Whether `encoding_format: base64` is answered (else refused as the vendor refuses it). */
  readonly base64: boolean;
  readonly maxInputs: number;
  /** The vendor's error code for a bad parameter, where it sends one. */
  readonly invalidCode: string;
  /** The answer's body from its parts, in the vendor's key order and with its extra members. */
  body(parts: EmbeddingsAnswer): Record<string, unknown>;
}

/** What every vendor's answer is made of. */
export interface EmbeddingsAnswer {
  readonly model: string;
  /** One entry per input, in order. */
  readonly vectors: readonly (readonly number[] | string)[];
  readonly promptTokens: number;
  /** The simulator's id of the request, for vendors that echo one. */
  readonly simId: string;
}
