/** `plugins/upstreams/<name>/request.ts` of a custom-protocol family: the client's chat body, translated. */
import type { FamilyNames } from '../names';
import type { NewFile } from './files';

export function customRequest(n: FamilyNames): NewFile {
  const text = `/**
 * The vendor's request, made from the client's chat completions body. The protocol is a placeholder
 * written by \`npm run new-family\`: \`{model, input: [{role, text}], max_output_tokens, stream}\`. Replace
 * \`vendorRequest\` with the vendor's body, and the field table with the fields it can be given.
 */
import { z } from 'zod';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { ChatFieldTable } from '../../apis/chat-completions';

/**
 * The chat fields the family translates: the contract's it takes, and OpenAI's max_completion_tokens,
 * read as max_tokens. The family translates (\`translates: true\`), so every other field, the contract's
 * or any a client adds, is refused with 400 unsupported_field naming it: the vendor would never see it,
 * and a client is told so rather than having it dropped. List here each field \`vendorRequest\` maps.
 */
export const ${n.camel}Fields: ChatFieldTable = {
  accepts: ['stream', 'stream_options', 'max_tokens'],
  own: { max_completion_tokens: { schema: z.int().min(1), expect: 'a positive integer' } },
  translates: true,
};

/** One turn of the vendor's \`input\`. */
interface VendorTurn {
  readonly role: string;
  readonly text: string;
}

/** A message's text: its content as a string, or its text parts joined (the placeholder takes only text). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: readonly unknown[] = content;
  return parts.map((part) => (isJsonObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

function turnOf(message: unknown): VendorTurn {
  const m = isJsonObject(message) ? message : {};
  return { role: typeof m.role === 'string' ? m.role : 'user', text: textOf(m.content) };
}

/** The vendor's body for a validated chat body, the model named as the vendor knows it. */
export function vendorRequest(body: JsonObject, upstreamModel: string): JsonObject {
  const messages: readonly unknown[] = Array.isArray(body.messages) ? body.messages : [];
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  return {
    model: upstreamModel,
    input: messages.map(turnOf),
    ...(typeof maxTokens === 'number' ? { max_output_tokens: maxTokens } : {}),
    stream: body.stream === true,
  };
}

/** Whether the client asked for a usage chunk at the end of its stream (\`stream_options.include_usage\`). */
export function clientWantsUsage(body: JsonObject): boolean {
  const options = body.stream_options;
  return body.stream === true && isJsonObject(options) && options.include_usage === true;
}
`;
  return { path: `plugins/upstreams/${n.name}/request.ts`, text };
}
