/**
 * The client contract (docs/contract.md) and docs/behaviour.md, "Behaviour where the contract is
 * silent", written out again independently of the gateway's own tables (only which models exist comes
 * from the gateway's catalogue), as a judge: for a parsed body it says whether the gateway must refuse it
 * (`invalid`, with the reason), must serve it (`valid`), or may do either (`gray`: the contract does not
 * say, e.g. a video resolution the upstream may not know).
 *
 * A few limits are this file's own assumptions, marked CAP: the hardening under way adds consumption caps
 * whose values are not written down yet, so only values no vendor would serve count as over a cap.
 */

import { testCatalogue } from '../helpers/catalogue';

export type Verdict = 'valid' | 'gray' | 'invalid';

export interface Judgement {
  readonly verdict: Verdict;
  /** Names the rule: `field:temperature`, `cap:max_tokens`, `credential-field`… (part of a failure class). */
  readonly kind: string;
  readonly why: string;
}

/**
 * Which models exist is the test gateway's catalogue, by the plugin that serves each family; the
 * contract's cells below (families, and the messages columns) say what each of them accepts.
 */
const served = testCatalogue();

export type ChatFamily = 'A' | 'B' | 'C';
// The chat families serve embedding models too: their chat columns are their chat models.
export const CHAT_FAMILIES: Readonly<Record<ChatFamily, readonly string[]>> = {
  A: served.of('modela', 'chat-completions'),
  B: served.of('modelb', 'chat-completions'),
  C: served.of('modelc', 'chat-completions'),
};
export const CHAT_MODELS: readonly string[] = Object.values(CHAT_FAMILIES).flat();
export const MESSAGES_MODELS: readonly string[] = served.of('modeld');
export const IMAGE_MODELS: readonly string[] = served.of('modelb-image');
export const VIDEOA_MODELS: readonly string[] = served.of('videoa');
export const VIDEOB_MODELS: readonly string[] = served.of('videob');
export const ALL_MODELS: readonly string[] = served.models;

// The contract's messages columns, in its order; the suite checks that MESSAGES_MODELS are these.
/** The one column that takes top_k, and thinking of type 'enabled'. */
export const SONNET_46 = 'modeld-sonnet-4-6';
const OPUS_48 = 'modeld-opus-4-8';
const SONNET_45 = 'modeld-sonnet-4-5-20250929';
const OPUS_46 = 'modeld-opus-4-6';
export const MESSAGES_COLUMNS: readonly string[] = [SONNET_46, OPUS_48, SONNET_45, OPUS_46];
/** Columns whose cell is "yes" for the newer fields and forms (metadata, thinking, system as an array…). */
export const LATEST: readonly string[] = [SONNET_46, OPUS_48];
/** Columns that take temperature and top_p. */
export const SAMPLING: readonly string[] = [SONNET_46, SONNET_45, OPUS_46];

export const MESSAGES_VERSION = '2023-06-01';

/** CAP: no model generates a million tokens in one call. */
export const MAX_TOKENS_CAP = 1_000_000;
/** CAP: OpenAI's documented ceiling of chat `n`. */
export const CHAT_N_CAP = 128;
/** Below these, no ceiling a gateway might set applies: such values must be served. */
const PLAIN_MAX_TOKENS = 4096;
const PLAIN_N = 4;
/** CAP: an hour of video from one call is beyond every vendor. */
export const VIDEO_SECONDS_CAP = 3_600;
/** Nesting this deep is refused (the hardening under way rejects deep nesting); shallower is the contract's. */
export const DEEP = 10_000;
/** Top-level fields that would point the gateway at another upstream or credential. */
export const CREDENTIAL_FIELDS: readonly string[] = ['base_url', 'api_base', 'api_key'];
/**
 * Keys a hardened gateway may refuse as well (other spellings of a credential or an endpoint, prototype
 * names), though the contract lets unlisted fields through: either answer is fine.
 */
export const SUSPECT_KEYS: readonly string[] = [
  'baseURL',
  'apiKey',
  'api_version',
  'endpoint',
  'organization',
  '__proto__',
  'constructor',
  'prototype',
];

type Json = unknown;
type Rec = Record<string, Json>;
const isRec = (v: Json): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks one field's value: undefined when it is fine. */
type Check = (v: Json) => Omit<Judgement, 'kind'> | undefined;

const bad = (why: string): Omit<Judgement, 'kind'> => ({ verdict: 'invalid', why });
const gray = (why: string): Omit<Judgement, 'kind'> => ({ verdict: 'gray', why });

const isNumber = (v: Json): v is number => typeof v === 'number' && Number.isFinite(v);

const bool: Check = (v) => (typeof v === 'boolean' ? undefined : bad('not a boolean'));
const str: Check = (v) => (typeof v === 'string' ? undefined : bad('not a string'));
const obj: Check = (v) => (isRec(v) ? undefined : bad('not an object'));
const num =
  (min = -Infinity, max = Infinity): Check =>
  (v) =>
    !isNumber(v)
      ? bad('not a finite number')
      : v < min || v > max
        ? bad(`outside ${min}..${max}`)
        : undefined;
/**
 * An integer ≥ `min`. Above `cap` is a CAP refusal; between `plain` and `cap` a gateway may set a lower
 * ceiling of its own, so either answer is fine; beyond 2^53 the contract does not say.
 */
const int =
  (min = -Infinity, cap = Infinity, plain = cap): Check =>
  (v) => {
    if (typeof v !== 'number' || !Number.isInteger(v)) return bad('not an integer');
    if (v < min) return bad(`below ${min}`);
    if (v > cap) return { verdict: 'invalid', why: `above the cap ${cap}` };
    if (v > plain) return gray(`above ${plain}, where a gateway may set its own ceiling`);
    return Number.isSafeInteger(v) ? undefined : gray('an integer beyond 2^53');
  };
/** `max_completion_tokens`: only a number above the cap is the gateway's to refuse; the rest the upstream judges. */
const outputTokensAlias: Check = (v) => {
  if (typeof v !== 'number') return gray('not in the contract: passed through');
  if (v > MAX_TOKENS_CAP) return { verdict: 'invalid', why: `above the cap ${MAX_TOKENS_CAP}` };
  return Number.isInteger(v) && v >= 1 && v <= PLAIN_MAX_TOKENS
    ? undefined
    : gray('a value the upstream judges');
};
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? undefined : bad(`not one of ${values.join(', ')}`);
const stringArray: Check = (v) =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : bad('not an array of strings');
const objectArray: Check = (v) =>
  !Array.isArray(v) ? bad('not an array') : v.every(isRec) ? undefined : bad('items are not all objects');
const either =
  (...checks: Check[]): Check =>
  (v) => {
    const results = checks.map((c) => c(v));
    if (results.some((r) => r === undefined)) return undefined;
    return results.find((r) => r?.verdict === 'gray') ?? results[0];
  };

/** A field of a table: its check, and who may send it (all when absent). */
interface Field {
  readonly check: Check;
  readonly only?: (model: string) => boolean;
  /** A refusal above a cap is classed `cap:<field>`. */
  readonly capped?: boolean;
}

const families =
  (...fs: ChatFamily[]) =>
  (model: string): boolean =>
    fs.some((f) => CHAT_FAMILIES[f].includes(model));
const models =
  (...ms: string[]) =>
  (model: string): boolean =>
    ms.includes(model);

const CHAT_FIELDS = new Map<string, Field>([
  ['stream', { check: bool }],
  ['stream_options', { check: obj, only: families('C') }],
  ['temperature', { check: num(0, 2) }],
  ['top_p', { check: num(0, 1) }],
  ['max_tokens', { check: int(1, MAX_TOKENS_CAP, PLAIN_MAX_TOKENS), capped: true }],
  // Not in the contract's table (it passes through, whatever its type), but OpenAI's own name for the
  // same ceiling, so a number above the cap must be refused like max_tokens.
  ['max_completion_tokens', { check: outputTokensAlias, capped: true }],
  ['n', { check: int(1, CHAT_N_CAP, PLAIN_N), capped: true }],
  ['stop', { check: either(str, stringArray) }],
  ['presence_penalty', { check: num(-2, 2) }],
  ['frequency_penalty', { check: num(-2, 2), only: families('A', 'B') }],
  // The contract says "number"; the range is not written down.
  [
    'repetition_penalty',
    {
      check: (v) => (isNumber(v) ? (v > 0 ? undefined : gray('not positive')) : bad('not a number')),
      only: families('C'),
    },
  ],
  ['logprobs', { check: bool, only: families('A') }],
  [
    'top_logprobs',
    {
      check: (v) => int()(v) ?? (isNumber(v) && (v < 0 || v > 20) ? gray('outside 0..20') : undefined),
      only: families('A'),
    },
  ],
  ['seed', { check: int(), only: families('A', 'C') }],
  ['reasoning_effort', { check: oneOf('low', 'medium', 'high'), only: families('A', 'B') }],
  ['enable_thinking', { check: bool, only: families('C') }],
  // "tool / function definitions": an array; what an item holds is not shown.
  [
    'tools',
    {
      check: (v) =>
        Array.isArray(v) ? (v.every(isRec) ? undefined : gray('items not objects')) : bad('not an array'),
    },
  ],
  ['tool_choice', { check: either(oneOf('auto', 'none', 'required'), obj) }],
  ['parallel_tool_calls', { check: bool, only: families('A', 'C') }],
  ['response_format', { check: obj }],
  ['extra_body', { check: obj, only: families('B') }],
  ['user', { check: str, only: families('A') }],
]);

const block = (v: Json): boolean => isRec(v) && typeof v.type === 'string';

const MESSAGES_FIELDS = new Map<string, Field>([
  ['max_tokens', { check: int(1, MAX_TOKENS_CAP, PLAIN_MAX_TOKENS), capped: true }],
  ['stream', { check: bool }],
  ['temperature', { check: num(0, 1), only: models(...SAMPLING) }],
  ['top_p', { check: num(0, 1), only: models(...SAMPLING) }],
  ['top_k', { check: int(0), only: models(SONNET_46) }],
  ['stop_sequences', { check: stringArray }],
  ['tools', { check: objectArray }],
  ['metadata', { check: obj, only: models(...LATEST) }],
  ['output_config', { check: obj, only: models(...LATEST) }],
]);

const IMAGE_FIELDS = new Map<string, Field>([
  [
    'prompt',
    { check: (v) => (typeof v === 'string' && v !== '' ? undefined : bad('not a non-empty string')) },
  ],
  ['n', { check: int(1, 10) }],
  [
    'size',
    {
      check: (v) => {
        const m = typeof v === 'string' ? /^([1-9]\d*)x([1-9]\d*)$/.exec(v) : null;
        if (!m) return bad('not <width>x<height>');
        // The simulator, like the vendor, draws at most 4096 a side; the contract names no ceiling.
        return Number(m[1]) > 4096 || Number(m[2]) > 4096 ? gray('a side above 4096') : undefined;
      },
    },
  ],
  ['quality', { check: str }],
  ['response_format', { check: str }],
  ['output_format', { check: oneOf('png', 'jpeg', 'webp') }],
  ['output_compression', { check: int(0, 100) }],
  ['background', { check: oneOf('transparent', 'opaque', 'auto') }],
  ['moderation', { check: oneOf('auto', 'low') }],
  ['user', { check: str }],
]);

class Verdicts {
  private readonly found: Judgement[] = [];
  add(kind: string, result: Omit<Judgement, 'kind'> | undefined): void {
    if (result) this.found.push({ kind, ...result });
  }
  invalid(kind: string, why: string): void {
    this.found.push({ verdict: 'invalid', kind, why });
  }
  gray(kind: string, why: string): void {
    this.found.push({ verdict: 'gray', kind, why });
  }
  get result(): Judgement {
    return (
      this.found.find((j) => j.verdict === 'invalid') ??
      this.found.find((j) => j.verdict === 'gray') ?? { verdict: 'valid', kind: 'valid', why: 'valid' }
    );
  }
}

function checkTable(v: Verdicts, body: Rec, table: Map<string, Field>, model: string): void {
  for (const key of Object.keys(body)) {
    const field = table.get(key);
    const value = body[key];
    if (!field || value === null) continue;
    if (field.only && !field.only(model)) {
      v.invalid(`unsupported:${key}`, `${key} is not accepted by ${model}`);
      continue;
    }
    const result = field.check(value);
    const capped = field.capped && result?.why.startsWith('above the cap');
    v.add(capped ? `cap:${key}` : `field:${key}`, result && { ...result, why: `${key}: ${result.why}` });
  }
}

/** Model checks common to every model-routed API; returns the model when it belongs to `served`. */
function checkModel(v: Verdicts, body: Json, served: readonly string[]): string | undefined {
  if (!isRec(body)) {
    v.invalid('body', 'the body is not a JSON object');
    return undefined;
  }
  const model = body.model;
  if (typeof model !== 'string' || model === '') v.invalid('model', 'model missing or not a string');
  else if (!served.includes(model)) v.invalid('model', `model ${model.slice(0, 40)} not served here`);
  else {
    for (const key of CREDENTIAL_FIELDS)
      if (Object.hasOwn(body, key)) v.invalid('credential-field', `the body carries ${key}`);
    if (hasSuspectKey(body, 0)) v.gray('suspect-key', 'a key a gateway may refuse');
    return model;
  }
  return undefined;
}

/** Whether a suspect key appears anywhere in the first levels of `value`. */

/**
 * The contract shows one block shape: a text block has `type: "text"` and a string `text`. One without
 * its text is invalid; blocks of other types are not shown, so either answer passes.
 */
function contentBlocks(v: Verdicts, blocks: readonly Json[], at: string): void {
  if (blocks.some((b) => isRec(b) && b.type === 'text' && typeof b.text !== 'string'))
    v.invalid('messages', `${at}: a text block without text`);
  else if (!blocks.every((b) => isRec(b) && b.type === 'text'))
    v.gray('content-parts', 'blocks other than text');
}

function hasSuspectKey(value: Json, depth: number): boolean {
  if (depth > 8 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => hasSuspectKey(item, depth + 1));
  return Object.keys(value).some(
    (k) => SUSPECT_KEYS.includes(k) || hasSuspectKey((value as Rec)[k], depth + 1),
  );
}

export interface Headers {
  get(name: string): string | undefined;
}

export function judgeChat(body: Json): Judgement {
  const v = new Verdicts();
  const model = checkModel(v, body, CHAT_MODELS);
  if (model === undefined || !isRec(body)) return v.result;
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    v.invalid('messages', 'messages not a non-empty array');
  else
    messages.forEach((m: Json, i) => {
      if (!isRec(m)) return v.invalid('messages', `messages[${i}] not an object`);
      if (typeof m.role !== 'string' || !['system', 'user', 'assistant', 'tool'].includes(m.role))
        return v.invalid('messages', `messages[${i}].role`);
      const content = m.content;
      const toolCalls = m.role === 'assistant' && Array.isArray(m.tool_calls) && content == null;
      if (typeof content !== 'string' && !Array.isArray(content) && !toolCalls)
        return v.invalid('messages', `messages[${i}].content not a string or an array`);
      // The shapes of content parts are not shown by the contract.
      if (
        Array.isArray(content) &&
        !content.every((p) => isRec(p) && p.type === 'text' && typeof p.text === 'string')
      )
        v.gray('content-parts', 'content parts of other shapes');
    });
  checkTable(v, body, CHAT_FIELDS, model);
  // The modelc vendor thinks only in streams and refuses `enable_thinking: true` otherwise; the contract
  // does not say so, so either answer is acceptable.
  if (body.enable_thinking === true && body.stream !== true)
    v.gray('field:enable_thinking', 'thinking without a stream');
  if (body.top_logprobs != null && body.logprobs !== true) v.gray('field:top_logprobs', 'without logprobs');
  return v.result;
}

export function judgeMessages(body: Json, headers: Headers): Judgement {
  const v = new Verdicts();
  const model = checkModel(v, body, MESSAGES_MODELS);
  if (model === undefined || !isRec(body)) return v.result;
  if (headers.get('modeld-version') !== MESSAGES_VERSION) v.invalid('version-header', 'modeld-version');
  if (body.max_tokens == null) v.invalid('field:max_tokens', 'max_tokens missing');
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    v.invalid('messages', 'messages not a non-empty array');
  else
    messages.forEach((m: Json, i) => {
      if (!isRec(m)) return v.invalid('messages', `messages[${i}] not an object`);
      if (m.role !== 'user' && m.role !== 'assistant') return v.invalid('messages', `messages[${i}].role`);
      const c = m.content;
      if (typeof c !== 'string' && !(Array.isArray(c) && c.every(block)))
        v.invalid('messages', `messages[${i}].content not text or blocks`);
      else if (Array.isArray(c)) contentBlocks(v, c, `messages[${i}].content`);
    });
  checkTable(v, body, MESSAGES_FIELDS, model);
  const system = body.system;
  if (system != null) {
    if (Array.isArray(system)) {
      if (!system.every(block)) v.invalid('field:system', 'system array of non-blocks');
      else if (!LATEST.includes(model)) v.invalid('unsupported:system', 'system as an array');
      else contentBlocks(v, system, 'system');
    } else if (typeof system !== 'string') v.invalid('field:system', 'system not a string or an array');
  }
  const choice = body.tool_choice;
  if (choice != null) {
    const type = isRec(choice) ? choice.type : undefined;
    if (type === 'auto' || type === 'any') {
      // fine for every model
    } else if (type === 'tool') {
      if (!isRec(choice) || typeof choice.name !== 'string' || choice.name === '')
        v.invalid('field:tool_choice', 'tool without a name');
    } else if (type === 'none') {
      if (!LATEST.includes(model)) v.invalid('unsupported:tool_choice', 'none');
    } else v.invalid('field:tool_choice', 'not auto, any, tool or none');
  }
  const thinking = body.thinking;
  if (thinking != null) {
    const type = isRec(thinking) ? thinking.type : undefined;
    if (!LATEST.includes(model)) v.invalid('unsupported:thinking', `thinking on ${model}`);
    else if (type === 'adaptive' || type === 'disabled') {
      // fine
    } else if (type === 'enabled' && model === SONNET_46 && isRec(thinking)) {
      const budget = thinking.budget_tokens;
      const max = body.max_tokens;
      if (!(typeof budget === 'number' && Number.isInteger(budget) && budget >= 1024))
        v.invalid('field:thinking', 'budget_tokens');
      else if (typeof max === 'number' && budget >= max) v.invalid('field:thinking', 'budget ≥ max_tokens');
    } else v.invalid('field:thinking', 'thinking type');
  }
  if (body.temperature != null && body.top_p != null) v.invalid('temperature+top_p', 'both sent');
  return v.result;
}

export function judgeImages(body: Json): Judgement {
  const v = new Verdicts();
  const model = checkModel(v, body, IMAGE_MODELS);
  if (model === undefined || !isRec(body)) return v.result;
  if (body.prompt == null) v.invalid('field:prompt', 'prompt missing');
  checkTable(v, body, IMAGE_FIELDS, model);
  const format = typeof body.output_format === 'string' ? body.output_format : 'png';
  if (body.output_compression != null && !['jpeg', 'webp'].includes(format))
    v.invalid('field:output_compression', `with ${format}`);
  if (body.background === 'transparent' && !['png', 'webp'].includes(format))
    v.invalid('field:background', `transparent with ${format}`);
  return v.result;
}

export type VideoProtocol = 'generic' | 'native-a' | 'native-b';

const VIDEO_SERVED: Readonly<Record<VideoProtocol, readonly string[]>> = {
  generic: [...VIDEOA_MODELS, ...VIDEOB_MODELS],
  'native-a': VIDEOA_MODELS,
  'native-b': VIDEOB_MODELS,
};

const nonEmptyText = (v: Json): boolean => typeof v === 'string' && v !== '';

export function judgeVideo(body: Json, protocol: VideoProtocol, headers: Headers): Judgement {
  const v = new Verdicts();
  if (protocol === 'native-a' && headers.get('x-nativea-async') !== 'enable')
    v.invalid('async-header', 'native-a without X-nativea-Async: enable');
  const model = checkModel(v, body, VIDEO_SERVED[protocol]);
  if (model === undefined || !isRec(body)) return v.result;
  if (VIDEOA_MODELS.includes(model)) {
    const input = body.input;
    if (!isRec(input) || !nonEmptyText(input.prompt)) v.invalid('field:input.prompt', 'input.prompt');
    else if ((input.prompt as string).trim() === '') v.gray('field:input.prompt', 'blank prompt');
    const parameters = body.parameters;
    if (!isRec(parameters)) v.invalid('field:parameters', 'parameters not an object');
    else {
      const { resolution, duration } = parameters;
      if (!nonEmptyText(resolution)) v.invalid('field:parameters.resolution', 'not a non-empty string');
      else if (!['480P', '720P', '1080P'].includes(resolution as string))
        v.gray('field:parameters.resolution', 'a resolution the contract does not list');
      if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1)
        v.invalid('field:parameters.duration', 'not a positive integer');
      else if (duration > VIDEO_SECONDS_CAP) v.invalid('cap:duration', `duration ${duration}`);
      else if (duration > 15) v.gray('field:parameters.duration', 'longer than the vendor makes');
    }
  } else {
    const content = body.content;
    const items = Array.isArray(content) ? content : [];
    const text = items.find((i) => isRec(i) && i.type === 'text') as Rec | undefined;
    if (!Array.isArray(content) || !text || typeof text.text !== 'string' || text.text.trim() === '')
      v.invalid('field:content', 'no text item with text');
    else {
      if (!items.every(block)) v.gray('field:content', 'items without a type');
      // Items other than text (images, videos, audio) are the vendor's, not shown by the contract.
      else if (!items.every((i) => isRec(i) && i.type === 'text'))
        v.gray('content-parts', 'items other than text');
      // The gateway reads the first text item; what the others must hold, the contract does not say.
      if (
        items.some(
          (i) => isRec(i) && i.type === 'text' && (typeof i.text !== 'string' || i.text.trim() === ''),
        )
      )
        v.gray('field:content', 'another text item without text');
      // The vendor's inline flags: `--name value` at a word start, the last of a name winning.
      const flags = [...text.text.matchAll(/(?:^|\s)--([a-z]+)\s+(\S+)/gi)].map(
        ([, name = '', value = '']) => [name.toLowerCase(), value] as const,
      );
      const valuesOf = (...names: string[]): string[] =>
        flags.filter(([n]) => names.includes(n)).map(([, x]) => x);
      const durations =
        typeof body.duration === 'number' ? [String(body.duration)] : valuesOf('duration', 'dur');
      const seconds = durations.length ? durations.map(Number) : [5];
      const last = seconds[seconds.length - 1]!;
      if (seconds.some((s) => s > VIDEO_SECONDS_CAP))
        v.invalid('cap:duration', `duration ${seconds.join(',')}`);
      else if (!(Number.isInteger(last) && last >= 1 && last <= 15))
        v.gray('field:duration', 'a duration the vendor does not make');
      if (body.duration !== undefined && typeof body.duration !== 'number')
        v.gray('field:duration', 'not a number');
      const resolutions =
        typeof body.resolution === 'string' ? [body.resolution] : valuesOf('resolution', 'rs');
      if (body.resolution !== undefined && typeof body.resolution !== 'string')
        v.gray('field:resolution', 'not a string');
      if (resolutions.some((r) => !['480p', '720p', '1080p'].includes(r.toLowerCase())))
        v.gray('field:resolution', 'a resolution the contract does not list');
      if (valuesOf('ratio', 'rt').some((r) => !/^(\d+:\d+|adaptive)$/.test(r)))
        v.gray('field:ratio', 'odd ratio');
      if (body.ratio !== undefined) v.gray('field:ratio', 'top-level ratio');
    }
  }
  return v.result;
}
