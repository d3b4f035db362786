/** `simulator/families/<name>.ts` for an OpenAI-compatible vendor: a chat dialect, as modela's. */
import type { FamilyNames } from '../names';
import type { NewFile } from './files';

export function openAiSimulator(n: FamilyNames): NewFile {
  const dialect = `${n.camel}Dialect`;
  const text = `/**
 * \`${n.name}\`: the simulator's side of plugins/upstreams/${n.name}/ (written by \`npm run new-family\`), so the
 * shipped gateway.yaml answers for ${n.name}-* out of the box. The dialect is OpenAI's own; where the vendor
 * differs (its error bodies, usage members, where a stream carries usage), set what it sends, as
 * simulator/families/modelb.ts and modelc.ts do for theirs.
 */
import type { ChatDialect } from '../chat/dialect';
import { chatFamily } from '../chat/handler';
import type { Family } from '../family';
import { openAiError, type OpenAiErrorCatalog } from './openai-error';

// The vendor's error messages, types and codes per status (placeholders in OpenAI's shape).
const ERRORS: OpenAiErrorCatalog = {
  400: { message: 'Invalid request.', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  429: { message: 'Rate limit reached for requests.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request.', type: 'server_error', code: null },
};

export const ${dialect}: ChatDialect = {
  name: '${n.name}',
  mount: '/${n.name}',
  chatPath: '${n.basePath}/chat/completions',
  defaultKey: '${n.simKey}',
  requestIdHeader: 'x-request-id',
  envelopeExtras: {},
  messageExtras: {},
  logprobs: false,
  errorBody: (err) => ({ error: openAiError(ERRORS, err) }),
  usage: (t) => ({
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    total_tokens: t.prompt + t.completion,
  }),
  // Usage streams only when asked (stream_options.include_usage), in a \`choices: []\` chunk of its own.
  streamUsage: (req) => ({ nullOnChunks: false, usageChunk: req.includeUsage, onLastFinish: false }),
  reasoningTokens: () => 0,
  validate: () => undefined,
};

/** What the simulator serves for ${n.name} (found on disk by index.ts). */
export const family: Family = chatFamily(${dialect});
`;
  return { path: `simulator/families/${n.name}.ts`, text };
}
