import type { constructor } from 'tsyringe/dist/typings/types';
import { definePlugin } from '../../../core/kit/plugin';
import { type UpstreamPlugin } from '../../../core/kit/upstream';
import { type UpstreamCaller, UpstreamCallerToken } from '../../../core/kit/vendor-calls';
import { inject } from 'tsyringe';
import { chatUpstreamOptions, type ChatUpstreamOptions } from './chat-options';
import type { ChatFamilySpec } from './chat-upstream';
import { OpenAiCompatibleFamily } from './family-upstream';

/**
 * Registers an OpenAI-compatible family under `name`: a family is only its data (ChatFamilySpec: its chat
 * and, optionally, its embedding models), so each family file is a table entry, not a class of its own.
 */
export function defineChatFamily(name: string, spec: ChatFamilySpec): constructor<UpstreamPlugin> {
  @definePlugin({ kind: 'upstream', name, options: chatUpstreamOptions })
  class ChatFamilyUpstream extends OpenAiCompatibleFamily {
    constructor(options: ChatUpstreamOptions, @inject(UpstreamCallerToken) caller: UpstreamCaller) {
      super(spec, options, caller);
    }
  }
  return ChatFamilyUpstream;
}
