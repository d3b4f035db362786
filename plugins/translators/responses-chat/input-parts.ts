/**
 * The content parts of a Responses input item as chat completions writes them, one rule per part type
 * (responses-output/input-parts.ts reads them): a member of a part that chat cannot carry (an uploaded
 * file's id for an image, a file by URL) is refused with a 400 naming its path.
 */
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import { mapParts, type PartRule, refuseUnlessDefault } from '../responses-output/input-parts';

const text: PartRule = (part) => ({ type: 'text', text: part.text });

/** Chat's image details; Responses adds `original`, which chat has no way to ask for. */
const CHAT_IMAGE_DETAILS: ReadonlySet<unknown> = new Set(['auto', 'low', 'high']);

const image: PartRule = (part, at, model) => {
  // An uploaded file is OpenAI's own storage: a chat image part takes only a URL (or a data URL).
  refuseUnlessDefault(part, 'file_id', at, model);
  if (typeof part.image_url !== 'string') throw Errors.invalidRequest(`field '${at}.image_url' is required`);
  const { detail } = part;
  if (detail != null && !CHAT_IMAGE_DETAILS.has(detail)) {
    throw Errors.unsupportedField(`${at}.detail`, model, `as ${JSON.stringify(detail)}`);
  }
  return { type: 'image_url', image_url: { url: part.image_url, ...(detail != null && { detail }) } };
};

/** The members of a chat `file` part, which Responses names alike. */
const FILE_MEMBERS = ['file_data', 'file_id', 'filename'] as const;

const file: PartRule = (part, at, model) => {
  refuseUnlessDefault(part, 'file_url', at, model);
  refuseUnlessDefault(part, 'detail', at, model, 'auto');
  const chatFile: JsonObject = {};
  for (const member of FILE_MEMBERS) if (part[member] != null) chatFile[member] = part[member];
  return { type: 'file', file: chatFile };
};

/** Parts of a user, system or developer message. */
const MESSAGE_PARTS: Readonly<Record<string, PartRule>> = {
  input_text: text,
  // An output message's text, sent back as context.
  output_text: text,
  input_image: image,
  input_file: file,
};

/** Parts of a tool's output: chat's tool messages carry text only. */
const TOOL_OUTPUT_PARTS: Readonly<Record<string, PartRule>> = { input_text: text };

/** A user, system or developer message's content in chat's form: a string, or chat's parts. */
export const chatContent = (content: string | readonly JsonObject[], at: string, model: string): unknown =>
  typeof content === 'string' ? content : mapParts(content, MESSAGE_PARTS, at, model);

/** A function call's output in chat's form: a string, or text parts. */
export const chatToolContent = (
  output: string | readonly JsonObject[],
  at: string,
  model: string,
): unknown => (typeof output === 'string' ? output : mapParts(output, TOOL_OUTPUT_PARTS, at, model));

/**
 * An assistant message sent back as context: its text parts joined (every chat vendor takes an
 * assistant's content as a string) and its refusal, which chat carries in its own member.
 */
export function assistantContent(
  content: string | readonly JsonObject[],
  at: string,
  model: string,
): { content: string; refusal?: string } {
  if (typeof content === 'string') return { content };
  let textOut = '';
  let refusal: string | undefined;
  content.forEach((part, j) => {
    if (part.type === 'output_text' || part.type === 'input_text') textOut += String(part.text);
    else if (part.type === 'refusal') refusal = (refusal ?? '') + String(part.refusal);
    else throw Errors.unsupportedField(`${at}[${j}]`, model, `of type '${String(part.type)}'`);
  });
  return refusal === undefined ? { content: textOut } : { content: textOut, refusal };
}
