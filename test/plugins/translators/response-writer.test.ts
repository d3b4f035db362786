/**
 * A stream's Response written in parts is the Response object serialised whole, to the byte, whatever
 * the request echoed and whatever state the Response is in.
 */
import t from 'tap';
import fc from 'fast-check';
import {
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
    usage: fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat() }),
  },
  { requiredKeys: ['id', 'createdAt', 'status', 'output'] },
);

t.test('the parts make the whole', (t) => {
  fc.assert(
    fc.property(body, fc.string(), fc.array(state, { minLength: 1, maxLength: 3 }), (b, model, states) => {
      const echo = responseEcho(b, model);
      const write = responseWriter(echo);
      for (const s of states)
        t.equal(write(s, JSON.stringify(s.output)), JSON.stringify(responseObject(s, echo)));
    }),
    { numRuns: 200 },
  );
  t.end();
});
