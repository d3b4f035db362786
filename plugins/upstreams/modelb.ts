/**
 * `modelb-*` chat: Gemini's OpenAI-compatible endpoint (UPSTREAMS.md §5). It reports usage in streams on
 * its own (on the finish chunk), and its vendor options travel in a literal top-level `extra_body`.
 * @example upstreams: { modelb-main: { plugin: modelb, base_url: https://generativelanguage.googleapis.com/v1beta/openai, api_key: "${MODELB_API_KEY}" } }
 */
import { inject } from 'tsyringe';
import { PluginOptionsToken } from '../../core/di';
import { upstreamPlugin } from '../../core/plugin';
import { chatUpstreamOptions, type ChatUpstreamOptions } from './openai-compatible/chat-options';
import { OpenAiCompatibleChat } from './openai-compatible/chat-upstream';

@upstreamPlugin('modelb', chatUpstreamOptions)
export class ModelbUpstream extends OpenAiCompatibleChat {
  constructor(@inject(PluginOptionsToken) options: ChatUpstreamOptions) {
    super(
      {
        family: 'B',
        vendor: 'modelb',
        models: ['modelb-3.5-flash', 'modelb-3.1-pro-preview'],
        created: 1767225600,
        renames: {},
        streamUsage: 'always',
      },
      options,
    );
  }
}
