/**
 * An OpenAI-compatible family as one upstream plugin: its chat part and, where its vendor has them, its
 * embeddings part and its Responses part, behind the one `upstreams:` entry (one base URL, one
 * credential). A request goes to the part of the API its client called, or, for a client of another API
 * whose body a translator turned into the model's own, to the part of the model's API.
 */
import {
  credentialHeaders,
  type ModelSpec,
  type UpstreamPlugin,
  type UpstreamRequest,
  upstreamUrl,
} from '../../../core/kit/upstream';
import type { VendorBatch, UpstreamCaller } from '../../../core/kit/vendor-calls';
import { Errors, type FamilyRequest } from '../../../core/kit/plugin';
import type { ApiPart } from './api-part';
import type { ChatUpstreamOptions } from './chat-options';
import { ChatPart, type ChatFamilySpec } from './chat-upstream';
import { EmbeddingsPart } from './embeddings-upstream';
import { ResponsesPart } from './responses-part';
import { OpenAiBatches } from './openai-batches';

function partsOf(spec: ChatFamilySpec, options: ChatUpstreamOptions): readonly ApiPart[] {
  const headers = credentialHeaders(options);
  const parts: ApiPart[] = [new ChatPart(spec, { url: upstreamUrl(options, options.chat_path), headers })];
  if (spec.embeddings) {
    const url = upstreamUrl(options, options.embeddings_path);
    const { vendor, created } = spec;
    parts.push(new EmbeddingsPart(spec.embeddings, { url, headers, vendor, created }));
  }
  if (spec.responses) {
    parts.push(
      new ResponsesPart(spec.responses, { url: upstreamUrl(options, options.responses_path), headers }),
    );
  }
  return parts;
}

/** The vendor's Batch API, for every API the family serves. */
function vendorBatches(parts: readonly ApiPart[], options: ChatUpstreamOptions, caller: UpstreamCaller) {
  const urls = {
    files: upstreamUrl(options, options.files_path),
    batches: upstreamUrl(options, options.batches_path),
    headers: credentialHeaders(options),
  };
  return new OpenAiBatches(
    parts.map((part) => part.api.path),
    caller,
    urls,
  );
}

export abstract class OpenAiCompatibleFamily implements UpstreamPlugin {
  readonly models: readonly ModelSpec[];
  readonly batches: VendorBatch.Upstream | undefined;
  /** Each part by the id of the API it serves. */
  private readonly parts: ReadonlyMap<string, ApiPart>;

  /** `caller`: the upstream's calls outside the proxy path, for a family whose vendor runs batches. */
  protected constructor(spec: ChatFamilySpec, options: ChatUpstreamOptions, caller?: UpstreamCaller) {
    const parts = partsOf(spec, options);
    this.models = parts.flatMap((part) => part.models);
    this.parts = new Map(parts.map((part) => [part.api.id, part]));
    this.batches = spec.batches && caller ? vendorBatches(parts, options, caller) : undefined;
  }

  prepare(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest> {
    const part = this.parts.get(ctx.endpoint.id) ?? this.parts.get(model.api.id);
    // The endpoint serves only models of its API, and the catalogue only this family's: a wiring mistake.
    if (!part) throw Errors.internal(new Error(`no part of this family serves ${model.api.id}`));
    return part.prepare(ctx, model, upstreamModel);
  }
}
