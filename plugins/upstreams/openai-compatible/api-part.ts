import type { FamilyRequest } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import type { ModelApi, ModelSpec, ResponseReader, UpstreamRequest } from '../../../core/kit/upstream';
import type { FamilyFields } from '../../apis/field-table';

/** Where a part's requests go: the vendor's endpoint of its API, with the family's credential. */
export interface PartTarget {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * One client API an OpenAI-compatible family serves (chat, embeddings, Responses): its models, the
 * family's table of that API's fields, where its requests go, and how a request of that API is checked
 * and mapped for the vendor. A family is the union of its parts.
 */
export abstract class ApiPart {
  protected constructor(
    readonly api: ModelApi,
    readonly models: readonly ModelSpec[],
    /** The family's table of the API's fields, compiled once, when the plugin is built. */
    protected readonly fields: FamilyFields,
    private readonly target: PartTarget,
  ) {}

  abstract prepare(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest>;

  /** The request to the part's vendor endpoint: `body` as the vendor gets it (see sentBytes). */
  protected request(body: Buffer, reader: ResponseReader): UpstreamRequest {
    return { url: this.target.url, headers: this.target.headers, body, reader };
  }
}

/**
 * The bytes the vendor gets: the client's own as they came when the gateway changed nothing, else
 * `changed`, the gateway's copy of the body, serialised.
 */
export const sentBytes = (ctx: FamilyRequest, changed: JsonObject | undefined): Buffer | Promise<Buffer> =>
  changed ? Buffer.from(JSON.stringify(changed)) : ctx.rawBody();
