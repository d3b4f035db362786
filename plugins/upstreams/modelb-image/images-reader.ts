/**
 * Reads an image generation response: one usage record per call, counting the images delivered, plus the
 * upstream's tokens when it reports them (the OpenAI image models do; whether Gemini's endpoint does is
 * uncertain, docs/upstreams.md#modelb-image), so a call is billed per image either way.
 */
import { imageOptions, type RelayingReader, tokenCount } from '../../../core/kit/upstream';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { SseEvent, Usage } from '../../../core/kit/plugin';

export class ImagesResponseReader implements RelayingReader {
  // The contract's image API answers in JSON only; there is no stream to complete or fail.
  readonly complete = false;
  readonly failed = false;
  private images = 0;
  private answered = false;

  /** The request's size and quality, which may set the price per image. */
  private readonly options: Pick<Usage, 'imageSize' | 'imageQuality'>;

  /** `promptTokens` estimates the prompt, for a call that ends before the upstream's answer. */
  constructor(
    private readonly promptTokens: () => number,
    body: JsonObject,
  ) {
    this.options = imageOptions(body);
  }

  json(body: JsonObject): { usage: Usage } {
    this.answered = true;
    this.images = Array.isArray(body.data) ? body.data.length : 0;
    const usage = isJsonObject(body.usage) ? body.usage : {};
    return {
      usage: {
        promptTokens: tokenCount(usage.input_tokens),
        completionTokens: tokenCount(usage.output_tokens),
        images: this.images,
        ...this.options,
        estimated: false,
      },
    };
  }

  event(ev: SseEvent): SseEvent {
    return ev;
  }

  usage(): Usage {
    const { options } = this;
    if (this.answered)
      return { promptTokens: 0, completionTokens: 0, images: this.images, ...options, estimated: false };
    return { promptTokens: this.promptTokens(), completionTokens: 0, images: 0, ...options, estimated: true };
  }
}
