import { isRecord } from '../is-record';
import type { VideoSpec } from '../tasks/timeline';
import { invalidParameter } from './errors';

/** The fields of a video-synthesis request the simulator acts on. */
export interface VideoaRequest {
  readonly model: string;
  readonly prompt: string;
  readonly video: VideoSpec;
}

type Body = Readonly<Record<string, unknown>>;

/** `parameters.resolution` values, with the `SR` (short side in pixels) that usage reports for each. */
export const RESOLUTIONS: Readonly<Record<string, number>> = { '480P': 480, '720P': 720, '1080P': 1080 };
// Seconds, as the newer models bound `duration`; defaults apply when a parameter is absent.
const MIN_DURATION = 1;
const MAX_DURATION = 15;
const DEFAULT_RESOLUTION = '720P';
const DEFAULT_DURATION = 5;

/** A required object field (`input`); `parameters` may be absent, and reads as empty. */
function objectField(body: Body, field: string, required: boolean): Body {
  const value = body[field];
  if (value === undefined && !required) return {};
  if (isRecord(value)) return value;
  throw invalidParameter(field, value === undefined ? 'Field required' : 'must be an object');
}

function nonEmptyText(record: Body, key: string, field: string): string {
  const value = record[key];
  if (typeof value === 'string' && value.trim() !== '') return value;
  throw invalidParameter(field, value === undefined ? 'Field required' : 'must be a non-empty string');
}

function resolutionOf(parameters: Body): string {
  const value = parameters.resolution;
  if (value === undefined) return DEFAULT_RESOLUTION;
  if (typeof value === 'string' && Object.hasOwn(RESOLUTIONS, value)) return value;
  throw invalidParameter('parameters.resolution', `must be one of ${Object.keys(RESOLUTIONS).join(', ')}`);
}

function durationOf(parameters: Body): number {
  const value = parameters.duration;
  if (value === undefined) return DEFAULT_DURATION;
  const ok =
    typeof value === 'number' && Number.isInteger(value) && value >= MIN_DURATION && value <= MAX_DURATION;
  if (ok) return value;
  throw invalidParameter('parameters.duration', `must be an integer from ${MIN_DURATION} to ${MAX_DURATION}`);
}

/**
 * Validates a video-synthesis body the way the vendor does at the front door. Other fields
 * (`negative_prompt`, `img_url`, `size`, `seed`, …) are accepted and ignored.
 * @throws SimError 400 `InvalidParameter` naming the field at fault.
 */
export function parseVideoaRequest(body: unknown): VideoaRequest {
  if (!isRecord(body)) throw invalidParameter('body', 'must be a JSON object');
  const model = nonEmptyText(body, 'model', 'model');
  const prompt = nonEmptyText(objectField(body, 'input', true), 'prompt', 'input.prompt');
  const parameters = objectField(body, 'parameters', false);
  return {
    model,
    prompt,
    video: { resolution: resolutionOf(parameters), duration: durationOf(parameters), ratio: null },
  };
}
