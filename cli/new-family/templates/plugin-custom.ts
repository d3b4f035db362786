/**
 * `plugins/upstreams/<name>/index.ts` of a family whose vendor speaks a protocol of its own: the plugin
 * class, which validates the client's chat request and hands the translation to request.ts and reader.ts.
 */
import type { FamilyNames } from '../names';
import { vendorBaseUrl } from '../names';
import { CREATED, type NewFile } from './files';

export function customPlugin(n: FamilyNames): NewFile {
  const [model, mini] = n.models;
  const options = `${n.camel}UpstreamOptions`;
  const text = `/**
 * \`${n.name}-*\`: a vendor with a chat protocol of its own, translated to and from OpenAI's chat
 * completions, which is what clients call. Written by \`npm run new-family\` for a placeholder protocol
 * (\`POST ${n.basePath}/generate\`; request.ts builds its body, reader.ts reads its answers): replace the
 * protocol with the vendor's, and the models and limits below with its own.
 * @example upstreams: { ${n.upstream}: { plugin: ${n.name}, base_url: ${vendorBaseUrl(n)}, api_key: "\${${n.env}_API_KEY}" } }
 */
import { z } from 'zod';
import { credentialHeaders, estimateTokens, type ModelLimits, type ModelSpec, promptChars, upstreamOptions, type UpstreamPlugin, type UpstreamRequest, upstreamUrl } from '../../../core/kit/upstream';
import { definePlugin, type FamilyRequest } from '../../../core/kit/plugin';
import { ChatCompletionsApi, chatFields, validateChatRequest } from '../../apis/chat-completions';
import type { FamilyFields } from '../../apis/field-table';
import { ${n.pascal}Reader } from './reader';
import { ${n.camel}Fields, clientWantsUsage, vendorRequest } from './request';

/** The common upstream options, and the path of the vendor's endpoint under base_url. */
export const ${options} = upstreamOptions.extend({
  generate_path: z.string().startsWith('/').default('/generate'),
});
export type ${n.pascal}UpstreamOptions = z.output<typeof ${options}>;

/** The vendor's model ids (placeholders); gateway.yaml's route and prices name them too. */
const MODELS: readonly string[] = ['${model}', '${mini}'];
/** The vendor's documented ceiling on output tokens (a placeholder); one choice a call, as \`n\` is refused. */
const LIMITS: ModelLimits = { max_output_tokens: 4_096, max_n: 1 };

@definePlugin({ kind: 'upstream', name: '${n.name}', options: ${options} })
export class ${n.pascal}Upstream implements UpstreamPlugin {
  readonly models: readonly ModelSpec[] = MODELS.map((id) => ({
    id,
    api: ChatCompletionsApi,
    created: ${CREATED},
    ownedBy: '${n.name}',
    limits: LIMITS,
  }));
  private readonly fields: FamilyFields = chatFields(${n.camel}Fields);
  private readonly url: URL;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(options: ${n.pascal}UpstreamOptions) {
    this.url = upstreamUrl(options, options.generate_path);
    this.headers = credentialHeaders(options);
  }

  async prepare(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest> {
    const body = await ctx.json();
    validateChatRequest(body, this.fields, model);
    const { messages } = body;
    return {
      url: this.url,
      headers: this.headers,
      // Always a new body: the vendor does not read the client's.
      body: Buffer.from(JSON.stringify(vendorRequest(body, upstreamModel))),
      reader: new ${n.pascal}Reader({
        id: \`chatcmpl-\${ctx.requestId}\`,
        model: model.id,
        includeUsage: clientWantsUsage(body),
        promptTokens: () => estimateTokens(promptChars(messages)),
      }),
    };
  }
}
`;
  return { path: `plugins/upstreams/${n.name}/index.ts`, text };
}
