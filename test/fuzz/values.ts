/**
 * The values fuzz cases are built from: every JSON type, the edges of the contract's ranges and the words
 * its enums use, numbers only text can write, invalid UTF-8, odd `model` values, headers and content parts.
 * Lists are ordered simplest first, since fast-check shrinks a choice towards the start of its list.
 */
import { ALL_MODELS, CREDENTIAL_FIELDS } from './contract';
import { RID } from './harness';
import type { Path } from './json-bytes';

/** Top-level keys outside the contract's tables: unknown ones, credentials, other spellings of them. */
// prettier-ignore
export const OTHER_FIELDS: readonly string[] = [
  'model', 'foo', 'max_completion_tokens', 'baseURL', 'apiKey', 'endpoint', 'organization', ...CREDENTIAL_FIELDS,
];

/** Keys that name properties of Object.prototype. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];

/** Values of every JSON type, edges of the contract's ranges, and words its enums use. */
// prettier-ignore
export const POOL: readonly unknown[] = [
  'x', true, false, 0, 1, -1, 0.5, 1.5, 2, 2.5, 3, -3, 20, 21, 100, 101, 129, 1025, 1_000_001, 2 ** 31,
  2 ** 53 + 2, '', ' ', '1', 'true', 'auto', 'none', 'required', 'any', 'tool', 'low', 'high', 'max', 'png',
  'gif', 'jpeg', 'transparent', '1024x1024', '0x0', '99999x99999', '720P',
  [], ['x'], [1], [{}], [null], [[]],
  {}, { type: 'auto' }, { type: 'none' }, { type: 'tool', name: 'get_weather' }, { type: 'adaptive' },
  { type: 'enabled', budget_tokens: 2048 }, { include_usage: true }, { toString: 1, valueOf: 'x' },
];

/** Numbers written as text that JSON.stringify cannot produce, or whose value is surprising. */
// prettier-ignore
export const RAW_NUMBERS: readonly string[] = [
  '1e308', '-1e308', '-0', '1e400', '-1e400', '1e-400', '123456789012345678901234567890', '1.0', '1E2', '0.1e1',
];

/** Byte sequences that are not UTF-8: lone bytes, overlong forms, truncations, surrogates, beyond U+10FFFF. */
// prettier-ignore
export const BAD_UTF8: readonly number[][] = [
  [0xff], [0xfe], [0x80], [0xc0, 0x80], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

/** `model` of another type, a near miss, a glob, a prototype name, or another API's model. */
// prettier-ignore
export const MODEL_VALUES: readonly unknown[] = [
  null, 1, true, [], {}, ['modela-5.5'], { toString: 'modela-5.5' }, '', ' ', 'unknown-model', 'MODELA-5.5',
  'modela-5.5 ', 'modelc-*', '*', '../modela-5.5', 'modela-5.5\u0000', 'constructor', '__proto__',
  'hasOwnProperty', ...ALL_MODELS,
];

/** Content-Type values; undefined sends none (the contract makes the header optional). */
// prettier-ignore
export const CONTENT_TYPES: readonly (string | undefined)[] = [
  undefined, 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x', 'application/json; charset=utf-16',
];

/** x-request-id headers: valid ones are echoed, the rest replaced by a fresh id. */
// prettier-ignore
export const REQUEST_IDS: readonly (readonly string[])[] = [
  [], [''], [' '], ['a'.repeat(128)], ['a'.repeat(129)], ['id with space'], ['id/slash'], ['\u00fc'],
  [RID, RID], [`x-${RID}`, 'other'], [`${RID}"><script>`],
];

/** Content parts and blocks of every shape, the contract's text part first. */
export const PARTS: readonly unknown[] = [
  { type: 'text', text: 'hi' },
  { type: 'text' },
  { type: 'text', text: 1 },
  { type: 'text', text: '' },
  { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
  { type: 'image_url' },
  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } },
  { type: 'input_audio', input_audio: { data: '', format: 'wav' } },
  { type: 'tool_result', content: [] },
  {},
  { type: null },
  { type: 1 },
  null,
  1,
  'text',
  [],
  [{ type: 'text', text: 'hi' }],
];

type Edges = readonly (readonly [Path, string, readonly unknown[]])[];

/**
 * Values at and beyond the edges of the contract's ranges, and over the caps, field by field (the object
 * the field is in, its name, its values). `['messages', 0]` stands for the user message.
 */
export const EDGES: Readonly<Record<'chat' | 'messages' | 'images' | 'videoa' | 'videob', Edges>> = {
  chat: [
    [[], 'temperature', [-0.1, 2.1, 1e308]],
    [[], 'top_p', [-0.1, 1.1]],
    [[], 'max_tokens', [0, -1, 1.5, 1_000_001, 2 ** 31, 2 ** 53, 1e308]],
    [[], 'n', [0, 1.5, 129, 10_000, 2 ** 31]],
    [[], 'presence_penalty', [-2.1, 2.1]],
    [[], 'frequency_penalty', [-2.1, 2.1]],
    [[], 'top_logprobs', [-1, 21, 1.5]],
    [[], 'seed', [1.5, 2 ** 63]],
    [[], 'stop', [[1], [null], {}]],
    [[], 'tool_choice', ['maybe', 1, []]],
    [[], 'reasoning_effort', ['max', 'LOW', '']],
    [['messages', 0], 'role', ['developer', 'System', '', 'function']],
    [['messages', 0], 'content', [null, 1, {}, true]],
  ],
  messages: [
    [[], 'max_tokens', [0, -1, 1.5, 1_000_001, 2 ** 31, 1e308]],
    [[], 'temperature', [-0.1, 1.1, 2]],
    [[], 'top_p', [-0.1, 1.1]],
    [[], 'top_k', [-1, 1.5]],
    // prettier-ignore
    [[], 'thinking', [
      { type: 'enabled', budget_tokens: 1024 }, { type: 'enabled', budget_tokens: 10 }, { type: 'enabled' }, { type: 'x' },
    ]],
    // prettier-ignore
    [[], 'tool_choice', [{ type: 'tool' }, { type: 'tool', name: '' }, { type: 'none' }, { type: 'required' }]],
    [[], 'system', [[{ type: 'text', text: 'x' }], [{}], ['x'], 1]],
    [['messages', 0], 'role', ['system', 'developer', '']],
    [['messages', 0], 'content', [null, 1, [{}], [{ type: 1 }], [{ type: 'text' }]]],
  ],
  images: [
    [[], 'n', [0, 11, 1_000_000, 1.5]],
    [[], 'size', ['4097x4097', '100000x100000', '1x1', '0x1', '1024X1024', '16x16x16', '-1x16']],
    [[], 'output_compression', [101, -1, 50]],
    [[], 'output_format', ['gif', 'PNG']],
    [[], 'background', ['transparent', 'none']],
    [[], 'prompt', ['', ' ', null]],
  ],
  videoa: [
    [['parameters'], 'duration', [0, -1, 1.5, 16, 3_601, 1e9, 2 ** 31]],
    [['parameters'], 'resolution', ['', '4K', '720p', ' ']],
    [['input'], 'prompt', ['', ' ', 1]],
  ],
  videob: [
    [[], 'duration', [0, 16, 3_601, 1e9]],
    // prettier-ignore
    [['content', 0], 'text', [
      'a cat --duration 3601', 'a cat --duration 99999999999', 'a cat --dur 0', 'a cat --resolution 8k', '', ' ',
    ]],
    [['content', 0], 'type', ['image_url', 'TEXT']],
  ],
};
