/** `plugins/upstreams/<name>/index.ts` of a family whose vendor speaks OpenAI's chat completions. */
import type { FamilyNames } from '../names';
import { vendorBaseUrl } from '../names';
import { CREATED, type NewFile } from './files';

export function openAiPlugin(n: FamilyNames): NewFile {
  const [model, mini] = n.models;
  const text = `/**
 * \`${n.name}-*\`: a vendor that speaks OpenAI's chat completions, so the family is its data. Written by
 * \`npm run new-family\`: every value below is a placeholder for the vendor's own, as its API reference
 * documents it (models, fields, renames, stream usage, limits).
 * @example upstreams: { ${n.upstream}: { plugin: ${n.name}, base_url: ${vendorBaseUrl(n)}, api_key: "\${${n.env}_API_KEY}" } }
 */
import { OPENAI_CHAT_FIELDS } from '../../apis/chat-completions';
import { defineChatFamily } from '../openai-compatible/define-chat-family';

export const ${n.pascal}Upstream = defineChatFamily('${n.name}', {
  fields: {
    // The contract's chat fields the vendor takes (any other the contract lists is refused with 400), and
    // stream_options so a client may ask for stream usage. Add the vendor's own under \`own:\` to check
    // them; the family relays, so a field no table lists reaches the vendor unchanged.
    accepts: [...OPENAI_CHAT_FIELDS, 'stream_options'],
  },
  // \`owned_by\` in GET /v1/models.
  vendor: '${n.name}',
  // The vendor's model ids; gateway.yaml's route and prices name them too.
  models: ['${model}', '${mini}'],
  created: ${CREATED},
  // Client field → the vendor's name for it, e.g. { max_tokens: 'max_completion_tokens' }.
  renames: {},
  // How the vendor reports usage in streams: 'ask', only when asked (stream_options.include_usage, which
  // the gateway then sends), or 'always'.
  streamUsage: 'ask',
  // The vendor's documented ceilings: output tokens per call and \`n\` (placeholders).
  limits: { max_output_tokens: 4_096, max_n: 1 },
});
`;
  return { path: `plugins/upstreams/${n.name}/index.ts`, text };
}
