/**
 * `modelc-*`: DashScope's OpenAI-compatible mode (docs/upstreams.md#modelc). Usage in streams only with
 * `stream_options.include_usage`, which the gateway adds when the client did not, and drops that usage chunk
 * again; the `"usage": null` on every other chunk, which DashScope sends unasked, reaches the client.
 * Its embeddings take text only and answer in floats only (the gateway encodes base64).
 * @example upstreams: { modelc-main: { plugin: modelc, base_url: https://dashscope-intl.aliyuncs.com/compatible-mode/v1, api_key: "${MODELC_API_KEY}" } }
 */
import { OPENAI_CHAT_FIELDS } from '../apis/chat-completions';
import { textOnlyEmbeddings } from '../apis/embeddings';
import { defineChatFamily } from './openai-compatible/define-chat-family';

const EMBEDDING_MODELS = ['modelc-embedding-v4'];

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
  embeddings: {
    // DashScope's reference: a string or an array of strings (or a file, which OpenAI's API has not).
    fields: textOnlyEmbeddings(EMBEDDING_MODELS),
    // …8,192 tokens a line; text-embedding-v4 in these sizes only, 1,024 by default…
    models: {
      'modelc-embedding-v4': {
        dimensions: { oneOf: [2048, 1536, 1024, 768, 512, 256, 128, 64] },
        maxInputTokens: 8192,
      },
    },
    // …at most 10 lines a call; `encoding_format` "only float".
    limits: { max_inputs: 10 },
    base64: 'gateway',
  },
});
