import { z } from 'zod';
import { upstreamOptions } from '../../../core/kit';

/** An OpenAI-compatible chat upstream: the common options plus the path of its chat endpoint under base_url. */
export const chatUpstreamOptions = upstreamOptions.extend({
  chat_path: z.string().startsWith('/').default('/chat/completions'),
});
export type ChatUpstreamOptions = z.output<typeof chatUpstreamOptions>;
