/**
 * The image generation API (`POST /v1/images/generations`) as the contract defines it: the endpoint and
 * its field rules (docs/contract.md#image-generation-request). Results are always `b64_json`.
 * Which fields a family takes or requires is its own table (ImageFieldTable), declared in its plugin.
 */
import { z } from 'zod';
import { checkCeiling, type ModelApi } from '../../core/kit/upstream';
import { Errors } from '../../core/kit/plugin';
import type { JsonObject } from '../../core/kit/json';
import type { CheckedModel } from './checked-model';
import { fieldsCompiler, type ApiFields, type FamilyFields, type FieldTable } from './field-table';
import { jsonOnlyApi } from './json-only-api';

export const ImagesApi: ModelApi = jsonOnlyApi({
  id: 'images',
  path: '/v1/images/generations',
  genAi: { operation: 'generate_content', input: 'prompt' },
});

/** The rules of the fields the contract lists for images; each family says which of them it takes. */
export const IMAGE_FIELD_RULES = {
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
} as const satisfies ApiFields;

export type ImageField = keyof typeof IMAGE_FIELD_RULES;
export type ImageFieldTable = FieldTable<typeof IMAGE_FIELD_RULES>;

export const imageFields = fieldsCompiler(IMAGE_FIELD_RULES);

/** The vendor's default when `output_format` is left out. */
const DEFAULT_FORMAT = 'png';
const COMPRESSIBLE = new Set(['jpeg', 'webp']);
const WITH_ALPHA = new Set(['png', 'webp']);

/** Checks an image request against its family's fields and the model's ceilings; throws a 400 naming a field. */
export function validateImageRequest(body: JsonObject, fields: FamilyFields, model: CheckedModel): void {
  fields.require(body, model.id);
  fields.check(body, model.id);
  checkCeiling('n', body.n, model.limits?.max_images, model.id);
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
