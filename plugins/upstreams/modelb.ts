/**
 * `modelb-*` chat: Gemini's OpenAI-compatible endpoint (docs/upstreams.md#modelb). Streams report usage (on the
 * finish chunk) when asked with `stream_options.include_usage`, which the gateway adds and strips again
 * (the contract gives modelb clients no `stream_options`). Its thinking counts only in `total_tokens`
 * (chat-usage.ts bills it as output). Vendor options travel in a literal top-level `extra_body`.
 * Its embeddings take text only, answer in floats (the gateway encodes base64) and report no usage (the
 * gateway estimates it).
 * @example upstreams: { modelb-main: { plugin: modelb, base_url: https://generativelanguage.googleapis.com/v1beta/openai, api_key: "${MODELB_API_KEY}" } }
 */
import { OPENAI_CHAT_FIELDS } from '../apis/chat-completions';
import { textOnlyEmbeddings } from '../apis/embeddings';
import { defineChatFamily } from './openai-compatible/define-chat-family';

const EMBEDDING_MODELS = ['modelb-embedding-001'];

export const ModelbUpstream = defineChatFamily('modelb', {
  fields: {
    accepts: [...OPENAI_CHAT_FIELDS, 'frequency_penalty', 'reasoning_effort', 'extra_body'],
  },
  vendor: 'modelb',
  models: ['modelb-3.5-flash', 'modelb-3.1-pro-preview'],
  created: 1767225600,
  renames: {},
  streamUsage: 'ask',
  // Gemini's model cards: 65,536 output tokens; `candidateCount` (OpenAI's `n`) from 1 to 8.
  limits: { max_output_tokens: 65_536, max_n: 8 },
  embeddings: {
    // Text only: Gemini counts its own tokens, so OpenAI's token ids mean nothing to it.
    fields: textOnlyEmbeddings(EMBEDDING_MODELS),
    // Gemini's model card: 2,048 input tokens, 3,072 dimensions by default, any size from 128.
    models: { 'modelb-embedding-001': { dimensions: { from: 128, to: 3072 }, maxInputTokens: 2048 } },
    // BatchEmbedContentsRequest takes at most 100 requests, and the compatible endpoint sends one.
    limits: { max_inputs: 100 },
    base64: 'gateway',
  },
});
