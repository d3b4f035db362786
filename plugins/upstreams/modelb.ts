/**
 * `modelb-*` chat: Gemini's OpenAI-compatible endpoint (UPSTREAMS.md §5). It reports usage in streams on
 * its own (on the finish chunk), and its vendor options travel in a literal top-level `extra_body`.
 * @example upstreams: { modelb-main: { plugin: modelb, base_url: https://generativelanguage.googleapis.com/v1beta/openai, api_key: "${MODELB_API_KEY}" } }
 */
import { defineChatFamily } from './openai-compatible/define-chat-family';

export const ModelbUpstream = defineChatFamily('modelb', {
  family: 'B',
  vendor: 'modelb',
  models: ['modelb-3.5-flash', 'modelb-3.1-pro-preview'],
  created: 1767225600,
  renames: {},
  streamUsage: 'always',
  // Gemini's model cards: 65,536 output tokens; `candidateCount` (OpenAI's `n`) from 1 to 8.
  limits: { max_output_tokens: 65_536, max_n: 8 },
});
