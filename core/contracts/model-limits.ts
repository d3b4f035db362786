/**
 * Consumption ceilings per model (OWASP API4, unrestricted resource consumption): how much one call may
 * ask an upstream to produce. Each upstream plugin declares its vendor's documented limits on its models;
 * gateway.yaml's `limits:` tightens (or loosens) them per model id or `*` pattern, the exact id winning.
 * A request over a ceiling gets 400 naming the field and the ceiling, before anything goes upstream.
 */
import type { LimitsConfig } from '../../config/schema';
import { Errors } from '../base/errors';
import { globMatch } from '../base/glob';

export interface ModelLimits {
  /** Generated tokens one call may ask for (`max_tokens` and its aliases). */
  readonly max_output_tokens?: number | undefined;
  /** Candidate replies one chat call may ask for (`n`). */
  readonly max_n?: number | undefined;
  /** Images one call may ask for. */
  readonly max_images?: number | undefined;
  /** Inputs one call may send to be processed apart, each its own result (texts to embed). */
  readonly max_inputs?: number | undefined;
  /** The longest video one task may ask for, in seconds. */
  readonly max_video_seconds?: number | undefined;
  /** The resolutions a video may be asked in (compared without case). */
  readonly video_resolutions?: readonly string[] | undefined;
}

/** The limits of `model`: the plugin's defaults, then matching patterns, then the exact entry of gateway.yaml. */
export function effectiveLimits(model: string, defaults: ModelLimits, config: LimitsConfig): ModelLimits {
  const patterns = Object.entries(config).filter(
    ([p]) => p !== model && p.includes('*') && globMatch(p, model),
  );
  return [...patterns.map(([, l]) => l), config[model]].reduce<ModelLimits>(
    (limits, layer) => ({ ...limits, ...layer }),
    defaults,
  );
}

/** Throws 400 when a numeric field is over its ceiling. */
export function checkCeiling(
  field: string,
  value: unknown,
  ceiling: number | undefined,
  model: string,
): void {
  if (ceiling !== undefined && typeof value === 'number' && value > ceiling) {
    throw Errors.overCeiling(field, ceiling, model);
  }
}

/** Throws 400 when a resolution is not among those allowed. */
export function checkResolution(
  field: string,
  value: string | undefined,
  allowed: ModelLimits['video_resolutions'],
  model: string,
): void {
  if (value === undefined || !allowed) return;
  const wanted = value.toLowerCase();
  if (!allowed.some((r) => r.toLowerCase() === wanted)) {
    throw Errors.invalidRequest(`field '${field}' must be one of ${allowed.join(', ')} for model '${model}'`);
  }
}
