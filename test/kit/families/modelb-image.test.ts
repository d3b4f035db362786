/**
 * The plugin kit for `modelb-image` (images on the modelb vendor's OpenAI-compatible endpoint): an answer
 * with usage and one without (whether the vendor sends it is uncertain), and the vendor's google.rpc errors.
 */
import t from 'tap';
import { runChatFamilyKit } from '../chat-suite';
import { golden, recorded } from '../fake-upstream';
import { clientBodyRenamed } from '../upstream-request';

void runChatFamilyKit(t, {
  plugin: 'modelb-image',
  api: 'images',
  errorShape: (status) => ({ error: { code: status, message: String, status: /^[A-Z_]+$/ } }),
  // The contract promises b64_json whatever the client asks: the vendor is always asked for it.
  upstream: { body: (call) => ({ ...clientBodyRenamed(call), response_format: 'b64_json' }) },
  cases: [
    {
      answer: recorded('modelb-image/openai-images-doc-example.json'),
      metered: { prompt_tokens: 50, completion_tokens: 50, images: 1, estimated: false },
    },
    { answer: golden('modelb-image/json-no-usage.json'), metered: { images: 1 } },
    // The same vendor as modelb chat: the same error bodies.
    { answer: golden('modelb/error-400.json', 400) },
    { answer: golden('modelb/error-401.json', 401) },
    { answer: golden('modelb/error-429.json', 429) },
    { answer: golden('modelb/error-500.json', 500) },
  ],
});
