/**
 * `modela-*`: OpenAI Chat Completions (docs/upstreams.md#modela). Its current models reject the legacy
 * `max_tokens`, so the contract's `max_tokens` is sent as `max_completion_tokens`.
 * @example upstreams: { modela-main: { plugin: modela, base_url: https://api.openai.com/v1, api_key: "${MODELA_API_KEY}" } }
 */
import { OPENAI_CHAT_FIELDS } from '../apis/chat-completions';
import { defineChatFamily } from './openai-compatible/define-chat-family';

export const ModelaUpstream = defineChatFamily('modela', {
  fields: {
    accepts: [
      ...OPENAI_CHAT_FIELDS,
      'frequency_penalty',
      'logprobs',
      'top_logprobs',
      'seed',
      'reasoning_effort',
      'parallel_tool_calls',
      'user',
    ],
  },
  vendor: 'modela',
  models: ['modela-5.6-luna', 'modela-5.5'],
  created: 1767225600,
  renames: { max_tokens: 'max_completion_tokens' },
  streamUsage: 'ask',
  // OpenAI's API reference: up to 128,000 output tokens on its current models; `n` from 1 to 128.
  limits: { max_output_tokens: 128_000, max_n: 128 },
});
