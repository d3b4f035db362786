/**
 * `modela-*`: OpenAI Chat Completions (docs/upstreams.md#modela). Its current models reject the legacy
 * `max_tokens`, so the contract's `max_tokens` is sent as `max_completion_tokens`. Its chat models take
 * the Responses API natively (OpenAI's own), and its embedding models (OpenAI's Embeddings API itself)
 * take every form of `input` and answer base64 themselves.
 * @example upstreams: { modela-main: { plugin: modela, base_url: https://api.openai.com/v1, api_key: "${MODELA_API_KEY}" } }
 */
import { OPENAI_CHAT_FIELDS } from '../apis/chat-completions';
import type { ResponsesField } from '../apis/responses';
import { defineChatFamily } from './openai-compatible/define-chat-family';

/**
 * The Responses fields passed to OpenAI: all but those that read what OpenAI keeps for the whole account
 * rather than for a key (responses-part.ts says why).
 */
const OPENAI_RESPONSES_FIELDS: readonly ResponsesField[] = [
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'temperature',
  'top_p',
  'top_logprobs',
  'parallel_tool_calls',
  'tools',
  'tool_choice',
  'reasoning',
  'text',
  'stream',
  'stream_options',
  'metadata',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'prompt_cache_options',
  'service_tier',
  'include',
  'store',
  'background',
  'truncation',
  'context_management',
  'moderation',
];

const OPENAI_EMBEDDING_TOKENS = { maxInputTokens: 8192, maxCallTokens: 300_000 } as const;

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
  // Function and custom tools are the client's to run; OpenAI's own tools are billed per call.
  responses: { fields: { accepts: OPENAI_RESPONSES_FIELDS }, tools: ['function', 'custom'] },
  // OpenAI runs chat, embeddings and Responses calls in its Batch API, at half price.
  batches: true,
  embeddings: {
    fields: { accepts: ['input', 'encoding_format', 'dimensions', 'user'] },
    // OpenAI's API reference: 8,192 tokens an input, 300,000 a call; `dimensions` up to the model's size.
    models: {
      'modela-embedding-3-small': { dimensions: { from: 1, to: 1536 }, ...OPENAI_EMBEDDING_TOKENS },
      'modela-embedding-3-large': { dimensions: { from: 1, to: 3072 }, ...OPENAI_EMBEDDING_TOKENS },
    },
    // …and at most 2,048 inputs a call.
    limits: { max_inputs: 2048 },
    base64: 'native',
  },
});
