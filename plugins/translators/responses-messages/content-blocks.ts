/**
 * The content parts of a Responses input item as messages content blocks, one rule per part type
 * (responses-output/input-parts.ts reads them). An image or file by URL is a block whose source is that
 * URL; a `data:` URL is the base64 source it spells out. What messages cannot carry (an uploaded file's
 * id, which is OpenAI's own storage, an image `detail`, which messages has no control for) is refused
 * with a 400 naming its path.
 */
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';
import { mapParts, type PartRule, refuseUnlessDefault } from '../responses-output/input-parts';

/** `data:<media type>;base64,<data>`, the form an inline image or file takes in a Responses part. */
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** A block source for `url`: base64 for a data URL, else the URL itself. */
function sourceOf(url: string, at: string): JsonObject {
  if (!url.startsWith('data:')) return { type: 'url', url };
  const match = DATA_URL.exec(url);
  if (!match) throw Errors.invalidRequest(`field '${at}' must be a base64 data URL or a URL`);
  return { type: 'base64', media_type: match[1], data: match[2] };
}

const text: PartRule = (part) => ({ type: 'text', text: part.text });

const image: PartRule = (part, at, model) => {
  refuseUnlessDefault(part, 'file_id', at, model);
  refuseUnlessDefault(part, 'detail', at, model, 'auto');
  if (typeof part.image_url !== 'string') throw Errors.invalidRequest(`field '${at}.image_url' is required`);
  return { type: 'image', source: sourceOf(part.image_url, `${at}.image_url`) };
};

/** A file by its data (a data URL) or by URL, as a `document` block titled with its file name. */
const file: PartRule = (part, at, model) => {
  refuseUnlessDefault(part, 'file_id', at, model);
  refuseUnlessDefault(part, 'detail', at, model, 'auto');
  const url = typeof part.file_data === 'string' ? part.file_data : part.file_url;
  if (typeof url !== 'string') throw Errors.invalidRequest(`field '${at}.file_data' is required`);
  const where = typeof part.file_data === 'string' ? 'file_data' : 'file_url';
  const title = typeof part.filename === 'string' ? { title: part.filename } : {};
  return { type: 'document', source: sourceOf(url, `${at}.${where}`), ...title };
};

/** An assistant's refusal sent back as context: what the model said, as text. */
const refusal: PartRule = (part) => ({ type: 'text', text: part.refusal });

/** Parts of a user message. */
const USER_PARTS: Readonly<Record<string, PartRule>> = {
  input_text: text,
  output_text: text,
  input_image: image,
  input_file: file,
};

/** Parts of an assistant message sent back: its text and refusals. */
const ASSISTANT_PARTS: Readonly<Record<string, PartRule>> = {
  output_text: text,
  input_text: text,
  refusal,
};

/** Parts of a system or developer message, which messages' top-level `system` holds as text. */
const SYSTEM_PARTS: Readonly<Record<string, PartRule>> = { input_text: text };

/** Parts of a function call's output: a tool result holds text and images. */
const TOOL_OUTPUT_PARTS: Readonly<Record<string, PartRule>> = { input_text: text, input_image: image };

export const PARTS_OF_ROLE: Readonly<Record<string, Readonly<Record<string, PartRule>>>> = {
  user: USER_PARTS,
  assistant: ASSISTANT_PARTS,
  system: SYSTEM_PARTS,
};

/** Content (a string, or parts by `rules`) as blocks. */
export const blocksOf = (
  content: string | readonly JsonObject[],
  rules: Readonly<Record<string, PartRule>>,
  at: string,
  model: string,
): JsonObject[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : mapParts(content, rules, at, model);

/** A function call's output as a tool result's content: a string, or text and image blocks. */
export const toolResultContent = (
  output: string | readonly JsonObject[],
  at: string,
  model: string,
): string | JsonObject[] =>
  typeof output === 'string' ? output : mapParts(output, TOOL_OUTPUT_PARTS, at, model);
