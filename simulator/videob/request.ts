import { isRecord } from '../is-record';
import type { VideoSpec } from '../tasks/timeline';
import { invalidParameter, missingParameter } from './errors';
import { inlineFlags, type FlagOption } from './flags';

/** The fields of a content-generation request the simulator acts on. */
export interface VideobRequest {
  readonly model: string;
  /** The first text item: the prompt, its inline flags and any `#sim` directive. */
  readonly prompt: string;
  readonly video: VideoSpec;
}

type Body = Readonly<Record<string, unknown>>;

/** How one task option is read from a top-level field or from its inline flag. */
interface OptionRule<T> {
  readonly key: FlagOption;
  readonly fallback: T;
  /** Completes "expected …" in the error. */
  readonly expected: string;
  fromField(value: unknown): T | undefined;
  fromFlag(raw: string): T | undefined;
}

const RESOLUTIONS: ReadonlySet<string> = new Set(['480p', '720p', '1080p']);
const RATIO = /^(\d+:\d+|adaptive)$/;
const DIGITS = /^\d+$/;
// Seconds; the Seedance generations between them accept 2 to 15.
const MIN_DURATION = 1;
const MAX_DURATION = 15;

const resolution = (raw: string): string | undefined =>
  RESOLUTIONS.has(raw.toLowerCase()) ? raw.toLowerCase() : undefined;
const ratio = (raw: string): string | undefined => (RATIO.test(raw) ? raw : undefined);
const duration = (n: number): number | undefined =>
  Number.isInteger(n) && n >= MIN_DURATION && n <= MAX_DURATION ? n : undefined;
const text =
  <T>(read: (raw: string) => T | undefined) =>
  (v: unknown) =>
    typeof v === 'string' ? read(v) : undefined;

const RESOLUTION: OptionRule<string> = {
  key: 'resolution',
  fallback: '720p',
  expected: '480p, 720p or 1080p',
  fromField: text(resolution),
  fromFlag: resolution,
};
const DURATION: OptionRule<number> = {
  key: 'duration',
  fallback: 5,
  expected: `an integer from ${MIN_DURATION} to ${MAX_DURATION}`,
  fromField: (v) => (typeof v === 'number' ? duration(v) : undefined),
  fromFlag: (raw) => (DIGITS.test(raw) ? duration(Number(raw)) : undefined),
};
const RATIO_RULE: OptionRule<string> = {
  key: 'ratio',
  fallback: '16:9',
  expected: '<width>:<height> or adaptive',
  fromField: text(ratio),
  fromFlag: ratio,
};

/** The option from its top-level field, else its flag in the prompt (`textParam`), else the default. */
function option<T>(
  body: Body,
  flags: Partial<Record<FlagOption, string>>,
  rule: OptionRule<T>,
  textParam: string,
): T {
  const field = body[rule.key];
  if (field !== undefined) {
    const value = rule.fromField(field);
    if (value === undefined) throw invalidParameter(rule.key, `expected ${rule.expected}`);
    return value;
  }
  const raw = flags[rule.key];
  if (raw === undefined) return rule.fallback;
  const value = rule.fromFlag(raw);
  if (value === undefined) throw invalidParameter(textParam, `--${rule.key} expected ${rule.expected}`);
  return value;
}

function modelOf(body: Body): string {
  const value = body.model;
  if (value === undefined) throw missingParameter('model');
  if (typeof value !== 'string' || value === '')
    throw invalidParameter('model', 'expected a non-empty string');
  return value;
}

/** The text of one text item; its parameter name is `content[i].text`. */
function itemText(item: Body, param: string): string {
  const value = item.text;
  if (value === undefined) throw missingParameter(param);
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidParameter(param, 'expected a non-empty string');
  return value;
}

/** The first text item and where it sits; every item must be an object with a `type`. */
function firstText(content: unknown): { text: string; param: string } {
  if (content === undefined) throw missingParameter('content');
  if (!Array.isArray(content) || content.length === 0) {
    throw invalidParameter('content', 'expected a non-empty array of content items');
  }
  let first: { text: string; param: string } | undefined;
  content.forEach((item: unknown, i) => {
    if (!isRecord(item) || typeof item.type !== 'string') {
      throw invalidParameter(`content[${i}]`, 'expected an object with a type');
    }
    if (item.type !== 'text') return;
    const param = `content[${i}].text`;
    const text = itemText(item, param);
    first ??= { text, param };
  });
  if (!first) throw invalidParameter('content', 'expected at least one item of type text');
  return first;
}

/**
 * Validates a content-generation body the way the vendor does at the front door, and reads the
 * task options: a top-level `resolution`/`duration`/`ratio` wins over the same inline flag in the
 * first text item. Other items (`image_url`, …) and fields are accepted and ignored.
 * @throws SimError 400 `MissingParameter` or `InvalidParameter` naming the parameter at fault.
 */
export function parseVideobRequest(body: unknown): VideobRequest {
  if (!isRecord(body)) throw invalidParameter('body', 'expected a JSON object');
  const model = modelOf(body);
  const { text, param } = firstText(body.content);
  const flags = inlineFlags(text);
  return {
    model,
    prompt: text,
    video: {
      resolution: option(body, flags, RESOLUTION, param),
      duration: option(body, flags, DURATION, param),
      ratio: option(body, flags, RATIO_RULE, param),
    },
  };
}
