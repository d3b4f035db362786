/**
 * The chat part of the OpenAI-compatible families. A family is data (ChatFamilySpec): its field table,
 * field renames for its upstream, how its upstream reports usage in streams, and, where its vendor has
 * them, its embedding models. The client's bytes go upstream as sent unless something in them had to
 * change.
 */
import {
  estimateTokens,
  type ModelLimits,
  type ModelSpec,
  promptChars,
  type UpstreamRequest,
} from '../../../core/kit/upstream';
import type { FamilyRequest } from '../../../core/kit/plugin';
import { type JsonObject, withFirstMember } from '../../../core/kit/json';
import {
  ChatCompletionsApi,
  chatFields,
  validateChatRequest,
  type ChatFieldTable,
} from '../../apis/chat-completions';
import { ResponsesApi } from '../../apis/responses';
import { ApiPart, sentBytes, type PartTarget } from './api-part';
import { ChatResponseReader } from './chat-reader';
import type { EmbeddingsFamilySpec } from './embeddings-upstream';
import type { ResponsesFamilySpec } from './responses-part';

export interface ChatFamilySpec {
  /** Which of the contract's chat fields the family takes (and any of its own). */
  readonly fields: ChatFieldTable;
  /** `owned_by` in the model list. */
  readonly vendor: string;
  readonly models: readonly string[];
  /** Unix seconds shown as `created` in the model list. */
  readonly created: number;
  /** Client field → the name this upstream expects. */
  readonly renames: Readonly<Record<string, string>>;
  /**
   * `ask`: the upstream reports stream usage only with `stream_options.include_usage`, so the gateway asks.
   * `always`: the upstream puts usage into streams on its own.
   */
  readonly streamUsage: 'ask' | 'always';
  /**
   * Whether the upstream's chunks carry `"usage": null` even when usage was not asked for (DashScope), where
   * OpenAI adds it only with `include_usage`. Those stay for the client; only what the gateway's asking
   * added is taken out again. Default false.
   */
  readonly nullUsageUnasked?: boolean;
  /** The vendor's documented ceilings for every model of the family… */
  readonly limits: ModelLimits;
  /** …and where one model's differ. */
  readonly modelLimits?: Readonly<Record<string, ModelLimits>>;
  /** The vendor's embedding models, served on `POST /v1/embeddings` by the same upstream entry. */
  readonly embeddings?: EmbeddingsFamilySpec;
  /**
   * Where the vendor serves OpenAI's Responses API itself: the chat models take `POST /v1/responses`
   * natively (else the gateway's translator serves it on their chat completions).
   */
  readonly responses?: ResponsesFamilySpec;
  /**
   * Whether the vendor has OpenAI's Batch API (files and batches) for the APIs the family serves: a
   * batch of its models then runs there, at the vendor's batch price.
   */
  readonly batches?: boolean;
}

/** What the gateway did to the client's body: nothing, one member added, or more (re-serialised). */
type BodyChange = 'none' | 'splice' | 'reserialise';

/** `stream_options` as the gateway adds it to a body without one (see BodyChange). */
const ASK_USAGE_MEMBER = '"stream_options":{"include_usage":true}';

/** The bytes the vendor gets; not an async function, which would add a promise to every call. */
function upstreamBody(ctx: FamilyRequest, body: JsonObject, change: BodyChange): Buffer | Promise<Buffer> {
  if (change === 'splice') return ctx.rawBody().then((raw) => withFirstMember(raw, ASK_USAGE_MEMBER));
  return sentBytes(ctx, change === 'reserialise' ? body : undefined);
}

export class ChatPart extends ApiPart {
  /** The family's renames (field, upstream's name), listed once rather than for every request. */
  private readonly renames: readonly (readonly [string, string])[];

  constructor(
    private readonly spec: ChatFamilySpec,
    target: PartTarget,
  ) {
    const models = spec.models.map((id) => ({
      id,
      api: ChatCompletionsApi,
      created: spec.created,
      ownedBy: spec.vendor,
      limits: { ...spec.limits, ...spec.modelLimits?.[id] },
      ...(spec.responses ? { alsoServes: [ResponsesApi] } : {}),
    }));
    super(ChatCompletionsApi, models, chatFields(spec.fields), target);
    this.renames = Object.entries(spec.renames);
  }

  async prepare(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest> {
    const body = await ctx.json();
    validateChatRequest(body, this.fields, model);
    const stream = body.stream === true;
    const clientWantsUsage =
      stream && (body.stream_options as JsonObject | undefined)?.include_usage === true;
    // Asking for usage the client did not want is only safe when the relay strips it again.
    const askUsage = stream && !clientWantsUsage && ctx.streamRelayed && this.spec.streamUsage === 'ask';
    // The parsed body stays the client's: a fallback's prepare, and the stages after, must see it as sent.
    let sent = this.upstreamFields(body, model.id, upstreamModel);
    let change: BodyChange = sent === body ? 'none' : 'reserialise';
    // The commonest change, usage asked of a body without stream_options, is made in the client's bytes.
    if (askUsage && change === 'none' && !('stream_options' in body)) change = 'splice';
    else if (askUsage) {
      change = 'reserialise';
      if (sent === body) sent = { ...body };
      sent.stream_options = { ...(body.stream_options as JsonObject | undefined), include_usage: true };
    }
    const messages = body.messages;
    // A translator reads the chunks, not a client: what the gateway asked for need not be cut from them.
    const stripUsage = stream && !clientWantsUsage && !ctx.translated;
    return this.request(
      await upstreamBody(ctx, sent, change),
      new ChatResponseReader(stripUsage, this.spec.nullUsageUnasked === true, () =>
        estimateTokens(promptChars(messages)),
      ),
    );
  }

  /**
   * The body with the upstream's model id and the family's renames, as a copy; `body` itself when
   * neither changes anything (the caller copies it before adding to it, see `prepare`).
   */
  private upstreamFields(body: JsonObject, modelId: string, upstreamModel: string): JsonObject {
    const renames = this.renames.filter(([from]) => from in body);
    if (upstreamModel === modelId && renames.length === 0) return body;
    const sent: JsonObject = { ...body, model: upstreamModel };
    for (const [from, to] of renames) {
      if (!(to in sent)) sent[to] = sent[from];
      delete sent[from];
    }
    return sent;
  }
}
