/**
 * `modelb-3.1-flash-image-preview`: image generation on the modelb vendor's OpenAI-compatible endpoint
 * (docs/upstreams.md#modelb-image). The contract promises `b64_json` results whatever `response_format` says, so the
 * upstream is always asked for `b64_json`.
 * @example upstreams: { modelb-image: { plugin: modelb-image, base_url: https://generativelanguage.googleapis.com/v1beta/openai, api_key: "${MODELB_API_KEY}" } }
 */
import { z } from 'zod';
import {
  credentialHeaders,
  estimateTokens,
  type ModelSpec,
  upstreamOptions,
  type UpstreamPlugin,
  type UpstreamRequest,
  upstreamUrl,
} from '../../core/kit/upstream';
import { definePlugin, type FamilyRequest } from '../../core/kit/plugin';
import type { FamilyFields } from '../apis/field-table';
import { imageFields, ImagesApi, validateImageRequest, type ImageFieldTable } from '../apis/images';
import { ImagesResponseReader } from './modelb-image/images-reader';

export const modelbImageOptions = upstreamOptions.extend({
  images_path: z.string().startsWith('/').default('/images/generations'),
});
export type ModelbImageOptions = z.output<typeof modelbImageOptions>;

const FIELDS: ImageFieldTable = {
  accepts: [
    'prompt',
    'n',
    'size',
    'quality',
    'response_format',
    'output_format',
    'output_compression',
    'background',
    'moderation',
    'user',
  ],
  requires: ['prompt'],
};

@definePlugin({ kind: 'upstream', name: 'modelb-image', options: modelbImageOptions })
export class ModelbImageUpstream implements UpstreamPlugin {
  readonly models: readonly ModelSpec[] = [
    {
      id: 'modelb-3.1-flash-image-preview',
      api: ImagesApi,
      created: 1767225600,
      ownedBy: 'modelb',
      // OpenAI's images API takes 1 to 10 images a call; Gemini's compatible endpoint documents no other.
      limits: { max_images: 10 },
    },
  ];
  private readonly fields: FamilyFields = imageFields(FIELDS);
  private readonly url: URL;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(options: ModelbImageOptions) {
    this.url = upstreamUrl(options, options.images_path);
    this.headers = credentialHeaders(options);
  }

  async prepare(ctx: FamilyRequest, model: ModelSpec, upstreamModel: string): Promise<UpstreamRequest> {
    const body = await ctx.json();
    validateImageRequest(body, this.fields, model);
    const upstreamBody = { ...body, model: upstreamModel, response_format: 'b64_json' };
    return {
      url: this.url,
      headers: this.headers,
      body: Buffer.from(JSON.stringify(upstreamBody)),
      reader: new ImagesResponseReader(
        () => estimateTokens(typeof body.prompt === 'string' ? body.prompt.length : 0),
        body,
      ),
    };
  }
}
