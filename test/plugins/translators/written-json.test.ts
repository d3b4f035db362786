/**
 * What a stream writes in parts is the object serialised whole, to the byte: the Response, whatever the
 * request echoed and whatever state it is in, and a message item and its parts.
 */
import t from 'tap';
import fc from 'fast-check';
import { responsesUsage } from '../../../core/kit/upstream';
import type { Usage } from '../../../core/kit/plugin';
import {
  messageItem,
  messageItemJson,
  partJson,
  partJsonText,
  type MessagePart,
} from '../../../plugins/translators/responses-output/output-items';
import {
  echoOf,
  responseEcho,
  responseObject,
  responseWriter,
  type ResponseState,
} from '../../../plugins/translators/responses-output/response-object';

const json = fc.jsonValue({ maxDepth: 2 });

const body = fc.record(
  {
    instructions: fc.string(),
    max_output_tokens: fc.nat(),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    tools: fc.array(fc.dictionary(fc.string(), json), { maxLength: 2 }),
    reasoning: fc.record({ effort: fc.constantFrom('low', 'high') }, { requiredKeys: [] }),
    text: fc.record({ verbosity: fc.constantFrom('low', 'high') }, { requiredKeys: [] }),
    metadata: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    user: fc.string(),
    truncation: fc.constantFrom('auto', 'disabled'),
  },
  { requiredKeys: [] },
);

const state: fc.Arbitrary<ResponseState> = fc.record(
  {
    id: fc.string(),
    createdAt: fc.nat(),
    status: fc.constantFrom('in_progress', 'completed', 'incomplete', 'failed'),
    completedAt: fc.nat(),
    error: fc.record({ code: fc.string(), message: fc.string() }),
    incompleteDetails: fc.option(fc.record({ reason: fc.string() })),
    output: fc.array(fc.dictionary(fc.string(), json), { maxLength: 3 }),
  },
  { requiredKeys: ['id', 'createdAt', 'status', 'output'] },
);

/** The gateway's usage, which a stream's last Response carries in the API's words. */
const usage: fc.Arbitrary<Usage | undefined> = fc.option(
  fc.record(
    {
      promptTokens: fc.nat(),
      completionTokens: fc.nat(),
      reasoningTokens: fc.nat(),
      cacheReadTokens: fc.nat(),
      cacheWriteTokens: fc.nat(),
      estimated: fc.boolean(),
    },
    { requiredKeys: ['promptTokens', 'completionTokens', 'estimated'] },
  ),
  { nil: undefined },
);

t.test('the parts make the whole', (t) => {
  fc.assert(
    fc.property(
      body,
      fc.string(),
      fc.array(fc.tuple(state, usage), { minLength: 1, maxLength: 3 }),
      (b, model, states) => {
        const echo = responseEcho(b, model);
        const write = responseWriter(echo);
        for (const [s, u] of states) {
          const whole = responseObject(u ? { ...s, usage: responsesUsage(u) } : s, echo);
          const head = { ...s, idJson: JSON.stringify(s.id), usage: u };
          t.equal(write(head, JSON.stringify(s.output)), JSON.stringify(whole));
        }
      },
    ),
    { numRuns: 200 },
  );
  t.end();
});

t.test('an echo is the same whether made for the request or shared with its model', (t) => {
  const model = { id: 'modela-5.5' } as Parameters<typeof echoOf>[1];
  fc.assert(
    fc.property(body, fc.constantFrom('modela-5.5', 'modela-5.5-mini'), (b, name) => {
      const request = { model: name, input: 'hi', ...b };
      t.strictSame(echoOf(request, model), responseEcho(request, name));
    }),
    { numRuns: 200 },
  );
  const plain = { model: 'modela-5.5', input: 'hi', stream: true };
  t.equal(
    echoOf(plain, model),
    echoOf({ ...plain, input: 'other' }, model),
    'a plain request shares its echo',
  );
  t.equal(responseWriter(echoOf(plain, model)), responseWriter(echoOf(plain, model)), 'and its writer');
  t.not(echoOf({ ...plain, user: 'u' }, model), echoOf(plain, model), 'an echoed member makes its own');
  t.ok(Object.isFrozen(echoOf(plain, model).reasoning), 'a shared echo cannot be changed');
  t.end();
});

const part: fc.Arbitrary<MessagePart> = fc.record({
  kind: fc.constantFrom('output_text', 'refusal'),
  text: fc.string({ unit: 'binary' }),
});

t.test('a message and its parts from their JSON', (t) => {
  fc.assert(
    fc.property(
      fc.string(),
      fc.array(part, { maxLength: 3 }),
      fc.constantFrom('in_progress', 'completed', 'incomplete'),
      (id, parts, status) => {
        const partsJson = parts.map((p) => partJsonText(p.kind, JSON.stringify(p.text)));
        t.same(
          partsJson,
          parts.map((p) => JSON.stringify(partJson(p))),
        );
        t.equal(
          messageItemJson(JSON.stringify(id), partsJson, status),
          JSON.stringify(messageItem(id, parts, status)),
        );
      },
    ),
    { numRuns: 200 },
  );
  t.end();
});
