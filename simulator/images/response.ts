import type { ImageRequest } from './request';

// The prompt-token heuristic the chat replies use: about four characters per token.
const CHARS_PER_TOKEN = 4;
// Output tokens per image: one per 1,024 pixels, so 1024×1024 costs 1,024 (near gpt-image-1 medium).
const PIXELS_PER_TOKEN = 1024;

/**
 * The gpt-image `usage` object: input is text only (ceil(prompt characters / 4), at least 1),
 * output is image only (ceil(width × height / 1,024) per image, times `n`).
 */
export function imageUsage(req: ImageRequest): Record<string, unknown> {
  const input = Math.max(1, Math.ceil(req.prompt.length / CHARS_PER_TOKEN));
  const output = Math.ceil((req.width * req.height) / PIXELS_PER_TOKEN) * req.n;
  return {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    input_tokens_details: { text_tokens: input, image_tokens: 0 },
    output_tokens_details: { image_tokens: output, text_tokens: 0 },
  };
}

/** The `images/generations` body: one `b64_json` per image, `usage` only when `withUsage`. */
export function imagesBody(
  req: ImageRequest,
  images: readonly Buffer[],
  created: number,
  withUsage: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    created,
    data: images.map((img) => ({ b64_json: img.toString('base64') })),
  };
  if (withUsage) body.usage = imageUsage(req);
  return body;
}
