/**
 * `modeld-*`: the messages API (docs/upstreams.md#modeld). The vendor authenticates with `x-api-key` and wants its
 * version header; both are configurable, so the same plugin fronts the vendor (`anthropic-version`) or
 * the simulator (`modeld-version`). The body is re-serialised only when the model id had to change.
 * @example upstreams: { modeld-main: { plugin: modeld, base_url: https://api.anthropic.com, api_key: "${MODELD_API_KEY}", version_header: { name: anthropic-version } } }
 */
import { z } from 'zod';
import {
  authOptions,
  credentialHeaders,
  estimateTokens,
  type ModelSpec,
  promptChars,
  upstreamOptions,
  type UpstreamPlugin,
  type UpstreamRequest,
  upstreamUrl,
} from '../../core/kit/upstream';
import { type UpstreamCaller, UpstreamCallerToken } from '../../core/kit/vendor-calls';
import { definePlugin, type FamilyRequest } from '../../core/kit/plugin';
import {
  MESSAGES_VERSION,
  MESSAGES_VERSION_HEADER,
  MessagesApi,
  messagesFields,
  validateMessagesHeaders,
  validateMessagesRequest,
} from '../apis/messages';
import type { FamilyFields } from '../apis/field-table';
import { MessagesResponseReader } from './modeld/messages-reader';
import { MessageBatches } from './modeld/message-batches';
import { inject } from 'tsyringe';
import { MAX_OUTPUT, MODELD_FIELDS, MODELD_MODELS } from './modeld/models';

export const modeldOptions = upstreamOptions.extend({
  auth: authOptions({ header: 'x-api-key', scheme: '' }),
  messages_path: z.string().startsWith('/').default('/v1/messages'),
  /** The vendor's Message Batches endpoint: a batch of its models runs there, at its batch price. */
  batches_path: z.string().startsWith('/').default('/v1/messages/batches'),
  /** The API version header the upstream expects (the vendor itself names it `anthropic-version`). */
  version_header: z
    .object({
      name: z.string().toLowerCase().default(MESSAGES_VERSION_HEADER),
      value: z.string().default(MESSAGES_VERSION),
    })
    .strict()
    .default({ name: MESSAGES_VERSION_HEADER, value: MESSAGES_VERSION }),
});
export type ModeldOptions = z.output<typeof modeldOptions>;

/** Unix seconds shown as `created` in the model list. */
const CREATED = 1767225600;

/** A `Warning` header (RFC 9111 §5.5 code 299, as Kubernetes sends for deprecated API use). */
const warningHeader = (warnings: readonly string[]): Record<string, string> =>
  warnings.length ? { warning: warnings.map((w) => `299 - "${w}"`).join(', ') } : {};

@definePlugin({ kind: 'upstream', name: 'modeld', options: modeldOptions })
export class ModeldUpstream implements UpstreamPlugin {
  readonly models: readonly ModelSpec[] = MODELD_MODELS.map((id) => ({
    id,
    api: MessagesApi,
    created: CREATED,
    ownedBy: 'modeld',
    limits: { max_output_tokens: MAX_OUTPUT[id] },
  }));
  private readonly fields: FamilyFields = messagesFields(MODELD_FIELDS);
  private readonly url: URL;
  private readonly headers: Readonly<Record<string, string>>;
  readonly batches: MessageBatches;

  constructor(options: ModeldOptions, @inject(UpstreamCallerToken) caller: UpstreamCaller) {
    this.url = upstreamUrl(options, options.messages_path);
    this.headers = {
      ...credentialHeaders(options),
      [options.version_header.name]: options.version_header.value,
    };
    this.batches = new MessageBatches(caller, upstreamUrl(options, options.batches_path), this.headers);
  }

  async prepare(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest> {
    validateMessagesHeaders(ctx.headers);
    const body = await ctx.json();
    const { warnings } = validateMessagesRequest(body, this.fields, model);
    const renamed = upstreamModel !== model.id;
    const { messages, system } = body;
    return {
      url: this.url,
      headers: this.headers,
      // A copy: the parsed body stays the client's, for a fallback's prepare and the stages after.
      body: renamed ? Buffer.from(JSON.stringify({ ...body, model: upstreamModel })) : await ctx.rawBody(),
      reader: new MessagesResponseReader(() =>
        estimateTokens(promptChars(messages) + promptChars([{ content: system }])),
      ),
      responseHeaders: warningHeader(warnings),
    };
  }
}
