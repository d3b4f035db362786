import { z } from 'zod';
import { upstreamOptions } from '../../../core/kit/upstream';

/**
 * An OpenAI-compatible upstream: the common options plus the paths under base_url of its chat endpoint
 * and, for a family whose vendor has them, its embeddings and Responses endpoints.
 */
export const chatUpstreamOptions = upstreamOptions.extend({
  chat_path: z.string().startsWith('/').default('/chat/completions'),
  embeddings_path: z.string().startsWith('/').default('/embeddings'),
  responses_path: z.string().startsWith('/').default('/responses'),
  /** The vendor's files and batches endpoints, for a family whose vendor runs batches. */
  files_path: z.string().startsWith('/').default('/files'),
  batches_path: z.string().startsWith('/').default('/batches'),
});
export type ChatUpstreamOptions = z.output<typeof chatUpstreamOptions>;
