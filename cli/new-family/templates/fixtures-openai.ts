/**
 * The kit's placeholder answers of an OpenAI-compatible family, in OpenAI's documented shapes (laid out as
 * the recordings of test/fixtures/modela/ are): a JSON answer, a stream with its usage chunk, that stream
 * cut short, and the error bodies of a 400, a 429 and a 500.
 */
import type { FamilyNames } from '../names';
import {
  CREATED,
  CUT_AFTER_WORDS,
  jsonFile,
  type NewFile,
  PLACEHOLDER_TEXT,
  PLACEHOLDER_USAGE,
  PLACEHOLDER_WORDS,
  sseEvent,
} from './files';

const ID = 'chatcmpl-xxxxxxxxxxxxxxxxxxxxxxxxxxxxx';

const usage = (completion: number) => ({
  prompt_tokens: PLACEHOLDER_USAGE.input,
  completion_tokens: completion,
  total_tokens: PLACEHOLDER_USAGE.input + completion,
});

function completion(model: string): unknown {
  return {
    id: ID,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: PLACEHOLDER_TEXT, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: usage(PLACEHOLDER_USAGE.output),
  };
}

/** A stream's events: the role chunk, a chunk a word, the finish chunk, the usage chunk, `[DONE]`. */
function streamEvents(model: string): string[] {
  const chunk = (choices: unknown[], extra: object = {}) =>
    sseEvent({ id: ID, object: 'chat.completion.chunk', created: CREATED, model, choices, ...extra });
  const choice = (delta: object, finish: string | null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });
  return [
    chunk([choice({ role: 'assistant', content: '', refusal: null }, null)]),
    ...PLACEHOLDER_WORDS.map((content) => chunk([choice({ content }, null)])),
    chunk([choice({}, 'stop')]),
    chunk([], { usage: usage(PLACEHOLDER_USAGE.output) }),
    sseEvent('[DONE]'),
  ];
}

/** OpenAI's error body: all four keys, four-space indent, as the API sends it. */
function errorFile(path: string, message: string, type: string, code: string | null): NewFile {
  const body = { error: { message, type, param: null, code } };
  return { path, text: `${JSON.stringify(body, null, 4)}\n` };
}

export function openAiFixtures(n: FamilyNames): NewFile[] {
  const dir = `test/kit/fixtures/${n.name}`;
  const events = streamEvents(n.models[0]);
  const placeholder = (status: number) =>
    `A placeholder error (${status}): replace this file with the vendor's recorded error body.`;
  return [
    jsonFile(`${dir}/json.json`, completion(n.models[0])),
    { path: `${dir}/stream.sse`, text: events.join('') },
    // The role chunk and the first words, then the connection ends: no finish, no usage, no [DONE].
    { path: `${dir}/stream-cut.sse`, text: events.slice(0, 1 + CUT_AFTER_WORDS).join('') },
    errorFile(`${dir}/error-400.json`, placeholder(400), 'invalid_request_error', null),
    errorFile(`${dir}/error-429.json`, placeholder(429), 'requests', 'rate_limit_exceeded'),
    errorFile(`${dir}/error-500.json`, placeholder(500), 'server_error', null),
  ];
}
