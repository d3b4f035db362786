import { inject } from 'tsyringe';
import type { constructor } from 'tsyringe/dist/typings/types';
import { PluginOptionsToken } from '../../../core/di';
import { upstreamPlugin, type UpstreamPlugin } from '../../../core/plugin';
import { chatUpstreamOptions, type ChatUpstreamOptions } from './chat-options';
import { OpenAiCompatibleChat, type ChatFamilySpec } from './chat-upstream';

/**
 * Registers an OpenAI-compatible chat family under `name`: a family is only its data (ChatFamilySpec),
 * so each family file is a table entry, not a class of its own.
 */
export function defineChatFamily(name: string, spec: ChatFamilySpec): constructor<UpstreamPlugin> {
  @upstreamPlugin(name, chatUpstreamOptions)
  class ChatFamilyUpstream extends OpenAiCompatibleChat {
    constructor(@inject(PluginOptionsToken) options: ChatUpstreamOptions) {
      super(spec, options);
    }
  }
  return ChatFamilyUpstream;
}
