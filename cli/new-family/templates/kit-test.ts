/** `test/kit/families/<name>.test.ts`: the family's run of the plugin kit over its placeholder answers. */
import type { FamilyNames } from '../names';
import { PLACEHOLDER_USAGE, PLACEHOLDER_WORDS, type NewFile } from './files';

const { input, output } = PLACEHOLDER_USAGE;
const METERED_JSON = `{ prompt_tokens: ${input}, completion_tokens: ${output}, estimated: false }`;
const METERED_STREAM = `{ prompt_tokens: ${input}, completion_tokens: ${PLACEHOLDER_WORDS.length}, estimated: false, outcome: 'ok' }`;

function openAiKitTest(n: FamilyNames): string {
  const f = (file: string) => `'${n.name}/${file}'`;
  return `/**
 * The plugin kit for \`${n.name}\` (an OpenAI-compatible vendor), written by \`npm run new-family\`. Its answers
 * (test/kit/fixtures/${n.name}/) are placeholders in OpenAI's documented shapes: replace each with the
 * vendor's recording (or one derived from a recording, as test/kit/fixtures/SOURCES.md says), then the
 * figures each case is metered as and the vendor's error shape below with what the recordings hold.
 */
import t from 'tap';
import { runChatFamilyKit } from '../chat-suite';
import { golden } from '../fake-upstream';

void runChatFamilyKit(t, {
  plugin: '${n.name}',
  api: 'chat',
  errorShape: () => ({ error: { message: String, type: String } }),
  // What the vendor must receive for every case: on this path under base_url, the family's credential with
  // the entry's key (never the client's own), and the client's body with the model id the route gives the
  // upstream. Say here, or in a case, what the family sends otherwise: a field it renames, say
  // \`body: (call) => ({ ...clientBodyRenamed(call), max_tokens: undefined, max_completion_tokens: 64 })\`.
  upstream: { path: '/chat/completions' },
  cases: [
    { answer: golden(${f('json.json')}), metered: ${METERED_JSON} },
    // Usage rides on a \`choices: []\` chunk before \`[DONE]\`; the client, who did not ask, never sees it.
    { answer: golden(${f('stream.sse')}), metered: ${METERED_STREAM} },
    { answer: golden(${f('stream-cut.sse')}), metered: { estimated: true, outcome: 'upstream_cut' } },
    { answer: golden(${f('error-400.json')}, 400) },
    { answer: golden(${f('error-429.json')}, 429, { 'retry-after': '20' }) },
    { answer: golden(${f('error-500.json')}, 500) },
  ],
});
`;
}

function customKitTest(n: FamilyNames): string {
  const f = (file: string) => `golden('${n.name}/${file}')`;
  const c = (file: string) => `golden('${n.name}/client/${file}')`;
  return `/**
 * The plugin kit for \`${n.name}\` (a vendor with a protocol of its own), written by \`npm run new-family\`. Each
 * case gives the vendor's answer (test/kit/fixtures/${n.name}/, placeholders in the placeholder protocol)
 * and what the client must get for it in OpenAI's chat completions (\`expect\`, client/). When the plugin
 * speaks the vendor's protocol, replace the answers with its recordings and the expected answers with
 * their translations, the figures each case is metered as, and the vendor's error shape below.
 */
import t from 'tap';
import { runChatFamilyKit } from '../chat-suite';
import { golden } from '../fake-upstream';
import type { UpstreamCall } from '../upstream-request';

/**
 * The vendor's body for the kit's request, in the placeholder protocol (request.ts): its messages as
 * \`input\` turns, the model id the route gives the upstream, and never \`stream_options\`, which only the
 * reader reads. Replace it with the vendor's when request.ts speaks the vendor's protocol.
 */
const vendorBody = ({ client, upstreamModel, stream }: UpstreamCall) => ({
  model: upstreamModel,
  input: (client.messages as { role: string; content: string }[]).map((m) => ({ role: m.role, text: m.content })),
  stream,
  stream_options: undefined,
});

void runChatFamilyKit(t, {
  plugin: '${n.name}',
  api: 'chat',
  // The vendor's error body: flat, which the gateway maps to the contract's \`{"error": {…}}\`.
  errorShape: () => ({ code: String, message: String }),
  // What the vendor must receive for every case, besides the family's credential with the entry's key
  // (never the client's own): the vendor's path under base_url, and its body.
  upstream: { path: '/generate', body: vendorBody },
  cases: [
    { answer: ${f('json.json')}, expect: ${c('json.json')}, metered: ${METERED_JSON} },
    {
      // A field the family's table takes reaches the vendor under the vendor's name.
      answer: ${f('json.json')},
      request: { max_tokens: 64 },
      upstream: { body: (call) => ({ ...vendorBody(call), max_output_tokens: 64, max_tokens: undefined }) },
      expect: ${c('json.json')},
      metered: ${METERED_JSON},
    },
    { answer: ${f('stream.sse')}, expect: ${c('stream.sse')}, metered: ${METERED_STREAM} },
    {
      // The client asked for usage: a chunk of its own before \`[DONE]\`.
      answer: ${f('stream.sse')},
      request: { stream_options: { include_usage: true } },
      expect: ${c('stream-usage.sse')},
      metered: ${METERED_STREAM},
    },
    {
      answer: ${f('stream-cut.sse')},
      expect: ${c('stream-cut.sse')},
      metered: { estimated: true, outcome: 'upstream_cut' },
    },
    {
      answer: ${f('stream-error.sse')},
      expect: ${c('stream-error.sse')},
      metered: { estimated: true, outcome: 'vendor_error' },
    },
    { answer: golden('${n.name}/error-400.json', 400), expect: ${c('error-400.json')} },
    { answer: golden('${n.name}/error-429.json', 429), expect: ${c('error-429.json')} },
    { answer: golden('${n.name}/error-500.json', 500), expect: ${c('error-500.json')} },
  ],
});
`;
}

export function kitTest(n: FamilyNames): NewFile {
  const text = n.protocol === 'openai' ? openAiKitTest(n) : customKitTest(n);
  return { path: `test/kit/families/${n.name}.test.ts`, text };
}
