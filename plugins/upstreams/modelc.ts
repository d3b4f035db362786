/**
 * `modelc-*`: DashScope's OpenAI-compatible mode (docs/upstreams.md#modelc). Usage in streams only with
 * `stream_options.include_usage`, which the gateway adds when the client did not, and drops that usage chunk
 * again; the `"usage": null` on every other chunk, which DashScope sends unasked, reaches the client.
 * @example upstreams: { modelc-main: { plugin: modelc, base_url: https://dashscope-intl.aliyuncs.com/compatible-mode/v1, api_key: "${MODELC_API_KEY}" } }
 */
import { OPENAI_CHAT_FIELDS } from '../apis/chat-completions';
import { defineChatFamily } from './openai-compatible/define-chat-family';

export const ModelcUpstream = defineChatFamily('modelc', {
  fields: {
    accepts: [
      ...OPENAI_CHAT_FIELDS,
      'stream_options',
      'repetition_penalty',
      'seed',
      'enable_thinking',
      'parallel_tool_calls',
    ],
  },
  vendor: 'modelc',
  models: [
    'modelc-3.6-max-preview',
    'modelc-3.6-flash',
    'modelc-3.7-plus',
    'modelc-3.6-plus',
    'modelc-3.5-plus',
    'modelc-3.7-max',
  ],
  created: 1767225600,
  renames: {},
  streamUsage: 'ask',
  nullUsageUnasked: true, // asking adds only the usage chunk
  // DashScope's model list: 65,536 output tokens on the current plus and max models (32,768 on flash);
  // `n` from 1 to 4.
  limits: { max_output_tokens: 65_536, max_n: 4 },
  modelLimits: { 'modelc-3.6-flash': { max_output_tokens: 32_768 } },
});
