import { isRecord } from '../is-record';
import { SimErrors } from '../sim-error';

/** Encodings the simulator renders, as `output_format` names them. */
export type ImageFormat = 'png' | 'jpeg' | 'webp';

/** The fields of an image-generation request the simulator acts on. */
export interface ImageRequest {
  readonly model: string;
  readonly prompt: string;
  /** Images to generate (`n`, default 1). */
  readonly n: number;
  readonly width: number;
  readonly height: number;
  readonly format: ImageFormat;
  /** `output_compression`, 0–100: the jpeg and webp quality (png is lossless and ignores it). */
  readonly compression: number;
  /** `background: transparent`: every image carries an alpha channel. */
  readonly transparent: boolean;
}

type Body = Readonly<Record<string, unknown>>;

// `n` as OpenAI bounds it; the side cap keeps a typo from asking for gigapixels.
const MAX_N = 10;
const MAX_SIDE = 4096;
const DEFAULT_SIZE = { width: 1024, height: 1024 };
const SIZE = /^(\d+)x(\d+)$/;
const FORMATS: readonly ImageFormat[] = ['png', 'jpeg', 'webp'];
const BACKGROUNDS = ['transparent', 'opaque', 'auto'] as const;
/** Formats that can carry an alpha channel, so `background: transparent` is refused for the rest. */
const HAS_ALPHA: Readonly<Record<ImageFormat, boolean>> = { png: true, jpeg: false, webp: true };

const invalid = (field: string, expected: string): never => {
  throw SimErrors.invalidParam(field, `Invalid '${field}': expected ${expected}.`);
};

/** A required non-empty string field. */
function requiredText(body: Body, field: string): string {
  const value = body[field];
  if (value == null || value === '') throw SimErrors.missingParam(field);
  return typeof value === 'string' ? value : invalid(field, 'a non-empty string');
}

/** An optional integer field within [min, max]; absent or null gives `fallback`. */
function integerIn(body: Body, field: string, min: number, max: number, fallback: number): number {
  const value = body[field];
  if (value == null) return fallback;
  const ok = typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
  return ok ? value : invalid(field, `an integer from ${min} to ${max}`);
}

/** An optional field that must be one of `allowed`; absent or null gives `fallback`. */
function oneOf<T extends string>(body: Body, field: string, allowed: readonly T[], fallback: T): T {
  const value = body[field];
  if (value == null) return fallback;
  return allowed.find((a) => a === value) ?? invalid(field, `one of ${allowed.join(', ')}`);
}

/** `size` as `<width>x<height>`; `auto` (OpenAI's default value) means the default size. */
function readSize(body: Body): { width: number; height: number } {
  const value = body.size;
  if (value == null || value === 'auto') return DEFAULT_SIZE;
  const match = typeof value === 'string' ? SIZE.exec(value) : null;
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  const ok = width >= 1 && width <= MAX_SIDE && height >= 1 && height <= MAX_SIDE;
  return ok ? { width, height } : invalid('size', `<width>x<height> with sides from 1 to ${MAX_SIDE}`);
}

/**
 * Validates an image-generation body the way the vendor does at the front door. `response_format`,
 * `quality`, `moderation`, `user` and unknown fields are accepted and ignored, as Gemini ignores
 * what it does not support.
 * @throws SimError 400 naming the field at fault.
 */
export function parseImageRequest(body: unknown): ImageRequest {
  if (!isRecord(body)) throw SimErrors.invalidParam('body', 'The request body must be a JSON object.');
  const prompt = requiredText(body, 'prompt');
  const model = requiredText(body, 'model');
  const n = integerIn(body, 'n', 1, MAX_N, 1);
  const { width, height } = readSize(body);
  const format = oneOf(body, 'output_format', FORMATS, 'png');
  const compression = integerIn(body, 'output_compression', 0, 100, 100);
  const transparent = oneOf(body, 'background', BACKGROUNDS, 'auto') === 'transparent';
  if (transparent && !HAS_ALPHA[format]) {
    const why = `Invalid 'background': transparent requires output_format png or webp, not ${format}.`;
    throw SimErrors.invalidParam('background', why);
  }
  return { model, prompt, n, width, height, format, compression, transparent };
}
