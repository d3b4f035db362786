/**
 * A new family runs the kit by listing its answers. `acme` is defined only under test/
 * (test/fixtures/plugins/acme); its vendor speaks OpenAI's chat protocol, so it lists OpenAI-shaped
 * answers, recorded where they exist, and says what each must be metered as. Nothing else is needed:
 * the kit finds its models in the gateway's catalogue and serves each answer from the simulator.
 */
import 'reflect-metadata';
import t from 'tap';
import '../../fixtures/plugins/acme';
import { runChatFamilyKit } from '../chat-suite';
import { golden, recorded } from '../fake-upstream';
import { clientBodyRenamed } from '../upstream-request';

void runChatFamilyKit(t, {
  plugin: 'acme',
  api: 'chat',
  // Its vendor's are OpenAI's.
  errorShape: () => ({ error: { message: String, type: String } }),
  cases: [
    {
      answer: recorded('modela/json.json'),
      metered: { prompt_tokens: 16, completion_tokens: 363, total_tokens: 379, estimated: false },
    },
    {
      // The fields its table takes reach the vendor, max_tokens under the vendor's name for it.
      answer: recorded('modela/json.json'),
      request: { max_tokens: 64, temperature: 0.5, top_k: 5 },
      upstream: {
        body: (call) => ({ ...clientBodyRenamed(call), max_tokens: undefined, max_completion_tokens: 64 }),
      },
      metered: { prompt_tokens: 16, completion_tokens: 363, total_tokens: 379, estimated: false },
    },
    {
      answer: recorded('modela/stream-include-usage.sse'),
      metered: {
        prompt_tokens: 14,
        completion_tokens: 47,
        total_tokens: 61,
        estimated: false,
        outcome: 'ok',
      },
    },
    { answer: golden('modela/stream-no-usage.sse'), metered: { estimated: true, outcome: 'ok' } },
    { answer: golden('modela/stream-cut.sse'), metered: { estimated: true, outcome: 'upstream_cut' } },
    { answer: golden('modela/error-400.json', 400) },
    { answer: golden('modela/error-429.json', 429) },
    { answer: golden('modela/error-500.json', 500) },
  ],
});
