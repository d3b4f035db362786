/**
 * The image generation API (`POST /v1/images/generations`) as the contract defines it: the endpoint and
 * its field rules (SERVICE-INTERFACE.md, "Image generation request"). Results are always `b64_json`.
 */
import { z } from 'zod';
import type { JsonObject } from '../../core/context';
import { Errors } from '../../core/errors';
import type { ModelApi } from '../../core/plugin';
import { checkCeiling, type ModelLimits } from '../../core/routing/model-limits';
import { OpenAiStreamDialect } from './chat-completions';
import { forEachListedField } from './field-table';

export const ImagesApi: ModelApi = Object.freeze({
  id: 'images',
  method: 'POST',
  path: '/v1/images/generations',
  // The contract's image API does not stream; an upstream that did would get OpenAI-style frames.
  dialect: OpenAiStreamDialect,
});

interface FieldRule {
  readonly schema: z.ZodType;
  /** What a valid value is, for the 400 message. */
  readonly expect: string;
}

/** The contract's table. A field not listed here is passed to the upstream unchanged. */
export const IMAGE_FIELDS: Readonly<Record<string, FieldRule>> = {
  prompt: { schema: z.string().min(1), expect: 'a non-empty string' },
  n: { schema: z.int().min(1), expect: 'a positive integer' },
  size: { schema: z.string().regex(/^[1-9]\d*x[1-9]\d*$/), expect: 'of the form <width>x<height>' },
  quality: { schema: z.string(), expect: 'a string' },
  response_format: { schema: z.string(), expect: 'a string' },
  output_format: { schema: z.enum(['png', 'jpeg', 'webp']), expect: 'one of png, jpeg, webp' },
  output_compression: { schema: z.int().min(0).max(100), expect: 'an integer from 0 to 100' },
  background: {
    schema: z.enum(['transparent', 'opaque', 'auto']),
    expect: 'one of transparent, opaque, auto',
  },
  moderation: { schema: z.enum(['auto', 'low']), expect: 'one of auto, low' },
  user: { schema: z.string(), expect: 'a string' },
};

/** The vendor's default when `output_format` is left out. */
const DEFAULT_FORMAT = 'png';
const COMPRESSIBLE = new Set(['jpeg', 'webp']);
const WITH_ALPHA = new Set(['png', 'webp']);

/** Checks an image request against the table and the model's ceilings. Throws a 400 naming the field. */
export function validateImageRequest(body: JsonObject, model: string, limits: ModelLimits = {}): void {
  if (body.prompt == null) throw Errors.invalidRequest("field 'prompt' is required");
  forEachListedField(body, IMAGE_FIELDS, (field, value, rule) => {
    if (!rule.schema.safeParse(value).success) {
      throw Errors.invalidRequest(`field '${field}' must be ${rule.expect}`);
    }
  });
  checkCeiling('n', body.n, limits.max_images, model);
  const format = typeof body.output_format === 'string' ? body.output_format : DEFAULT_FORMAT;
  if (body.output_compression != null && !COMPRESSIBLE.has(format)) {
    throw Errors.invalidRequest(
      `field 'output_compression' needs 'output_format' jpeg or webp, not ${format}`,
    );
  }
  if (body.background === 'transparent' && !WITH_ALPHA.has(format)) {
    throw Errors.invalidRequest(
      `field 'background' transparent needs 'output_format' png or webp, not ${format}`,
    );
  }
}
