import { z } from 'zod';
import { upstreamOptions } from '../../../core/kit';

/**
 * An OpenAI-compatible upstream: the common options plus the paths of its chat endpoint and (for a family
 * with embedding models) its embeddings endpoint under base_url.
 */
export const chatUpstreamOptions = upstreamOptions.extend({
  chat_path: z.string().startsWith('/').default('/chat/completions'),
  embeddings_path: z.string().startsWith('/').default('/embeddings'),
});
export type ChatUpstreamOptions = z.output<typeof chatUpstreamOptions>;
