/**
 * The kit's placeholder answers of a custom-protocol family: the vendor's, in the placeholder protocol
 * (test/kit/fixtures/<name>/), and what the client must get for each, in OpenAI's chat completions
 * (test/kit/fixtures/<name>/client/). The client files list only what the gateway must produce (no ids,
 * times or model, which vary), as the kit compares them member by member.
 */
import type { FamilyNames } from '../names';
import {
  CUT_AFTER_WORDS,
  jsonFile,
  type NewFile,
  PLACEHOLDER_TEXT,
  PLACEHOLDER_USAGE,
  PLACEHOLDER_WORDS,
  sseEvent,
} from './files';

const VENDOR_USAGE = { input_tokens: PLACEHOLDER_USAGE.input, output_tokens: PLACEHOLDER_USAGE.output };
const CLIENT_USAGE = {
  prompt_tokens: PLACEHOLDER_USAGE.input,
  completion_tokens: PLACEHOLDER_USAGE.output,
  total_tokens: PLACEHOLDER_USAGE.input + PLACEHOLDER_USAGE.output,
};

/** The vendor's errors, flat `{code, message}`, each with the contract's body the client gets for it. */
const ERRORS: readonly (readonly [status: number, code: string])[] = [
  [400, 'invalid_request'],
  [429, 'rate_limited'],
  [500, 'server_error'],
];
const STREAM_ERROR = {
  code: 'overloaded',
  message: "A placeholder in-stream error: replace it with the vendor's.",
};
const errorMessage = (status: number): string =>
  `A placeholder error (${status}): replace this file with the vendor's recorded error body.`;

const vendorDeltas = PLACEHOLDER_WORDS.map((text) => sseEvent({ text }, 'delta'));

function vendorFiles(dir: string): NewFile[] {
  const cut = vendorDeltas.slice(0, CUT_AFTER_WORDS);
  return [
    jsonFile(`${dir}/json.json`, {
      id: 'gen_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      output_text: PLACEHOLDER_TEXT,
      stop_reason: 'end',
      usage: VENDOR_USAGE,
    }),
    {
      path: `${dir}/stream.sse`,
      text: [...vendorDeltas, sseEvent({ stop_reason: 'end', usage: VENDOR_USAGE }, 'done')].join(''),
    },
    { path: `${dir}/stream-cut.sse`, text: cut.join('') },
    { path: `${dir}/stream-error.sse`, text: [...cut, sseEvent(STREAM_ERROR, 'error')].join('') },
    ...ERRORS.map(([status, code]) =>
      jsonFile(`${dir}/error-${status}.json`, { code, message: errorMessage(status) }),
    ),
  ];
}

const chunk = (choices: unknown[], extra: object = {}) =>
  sseEvent({ object: 'chat.completion.chunk', choices, ...extra });

/** The client's chunks for the vendor's deltas: the first names the role. */
const clientDeltas = PLACEHOLDER_WORDS.map((content, i) =>
  chunk([{ index: 0, delta: i === 0 ? { role: 'assistant', content } : { content }, finish_reason: null }]),
);
const FINISH = chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
const DONE = sseEvent('[DONE]');

function clientFiles(dir: string): NewFile[] {
  const cut = clientDeltas.slice(0, CUT_AFTER_WORDS);
  const message = { role: 'assistant', content: PLACEHOLDER_TEXT };
  return [
    jsonFile(`${dir}/json.json`, {
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: 'stop' }],
      usage: CLIENT_USAGE,
    }),
    { path: `${dir}/stream.sse`, text: [...clientDeltas, FINISH, DONE].join('') },
    // The client asked for usage (stream_options.include_usage): a chunk of its own before [DONE].
    {
      path: `${dir}/stream-usage.sse`,
      text: [...clientDeltas, FINISH, chunk([], { usage: CLIENT_USAGE }), DONE].join(''),
    },
    // The gateway's own error event ends a stream the vendor cut.
    {
      path: `${dir}/stream-cut.sse`,
      text: [...cut, sseEvent({ error: { code: 'upstream_stream_cut', type: 'error' } })].join(''),
    },
    {
      path: `${dir}/stream-error.sse`,
      text: [...cut, sseEvent({ error: { ...STREAM_ERROR, type: 'error' } })].join(''),
    },
    ...ERRORS.map(([status, code]) =>
      jsonFile(`${dir}/error-${status}.json`, {
        error: { code, message: errorMessage(status), type: 'error' },
      }),
    ),
  ];
}

export function customFixtures(n: FamilyNames): NewFile[] {
  const dir = `test/kit/fixtures/${n.name}`;
  return [...vendorFiles(dir), ...clientFiles(`${dir}/client`)];
}
