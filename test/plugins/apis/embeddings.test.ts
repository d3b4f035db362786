/**
 * The embeddings request rules (plugins/apis/embeddings.ts), table-driven, against a family table that
 * takes every form and one that takes text only: which bodies pass, and which 400 each of the others gets.
 */
import t from 'tap';
import { GatewayError } from '../../../core/base/errors';
import {
  embeddingFields,
  validateEmbeddingsRequest,
  type EmbeddingModelFacts,
} from '../../../plugins/apis/embeddings';
import { inputTokens, inputsOf } from '../../../plugins/apis/embedding-input';

const ALL = embeddingFields({ accepts: ['input', 'encoding_format', 'dimensions', 'user'] });
const TEXT = embeddingFields({
  accepts: { input: { text: ['m'], texts: ['m'] }, encoding_format: ['m'], dimensions: ['m'] },
});
const RANGE: EmbeddingModelFacts = { dimensions: { from: 1, to: 8 }, maxInputTokens: 4, maxCallTokens: 6 };
const LIST: EmbeddingModelFacts = { dimensions: { oneOf: [64, 128] }, maxInputTokens: 8192 };
const LIMITS = { max_inputs: 3 };

/** [what, table, facts, body, undefined when valid, else the code and a part of the message]. */
const CASES: readonly [string, typeof ALL, EmbeddingModelFacts, object, [string, string]?][] = [
  ['a string', ALL, RANGE, { input: 'hi' }],
  ['strings', ALL, RANGE, { input: ['a', 'b', 'c'] }],
  ['tokens', ALL, RANGE, { input: [1, 2, 3] }],
  ['token arrays', ALL, RANGE, { input: [[1], [2, 3]] }],
  ['floats asked', ALL, RANGE, { input: 'x', encoding_format: 'float', dimensions: 8, user: 'u' }],
  ['no input', ALL, RANGE, {}, ['invalid_request', "'input' is required"]],
  ['an empty string', ALL, RANGE, { input: '' }, ['invalid_request', "'input' must be"]],
  ['an empty array', ALL, RANGE, { input: [] }, ['invalid_request', "'input' must be"]],
  ['mixed forms', ALL, RANGE, { input: ['a', [1]] }, ['invalid_request', "'input' must be"]],
  ['a negative token', ALL, RANGE, { input: [-1] }, ['invalid_request', "'input' must be"]],
  [
    'one input too many',
    ALL,
    RANGE,
    { input: ['a', 'b', 'c', 'd'] },
    ['invalid_request', 'at most 3 a call'],
  ],
  [
    'a token array too long',
    ALL,
    RANGE,
    { input: [[1, 2, 3, 4, 5]] },
    ['invalid_request', 'at most 4 an input'],
  ],
  [
    'tokens over the call',
    ALL,
    RANGE,
    { input: [[1, 2, 3], [4, 5, 6], [7]] },
    ['invalid_request', 'at most 6 a call'],
  ],
  ['a size over the range', ALL, RANGE, { input: 'x', dimensions: 9 }, ['invalid_request', 'from 1 to 8']],
  ['a size not listed', TEXT, LIST, { input: 'x', dimensions: 100 }, ['invalid_request', 'one of 64, 128']],
  ['a size listed', TEXT, LIST, { input: 'x', dimensions: 128 }],
  [
    'a bad encoding',
    ALL,
    RANGE,
    { input: 'x', encoding_format: 'hex' },
    ['invalid_request', 'float, base64'],
  ],
  ['tokens on text only', TEXT, LIST, { input: [1, 2] }, ['unsupported_field', 'as an array of tokens']],
  [
    'token arrays on text only',
    TEXT,
    LIST,
    { input: [[1]] },
    ['unsupported_field', 'as an array of token arrays'],
  ],
  ['user on text only', TEXT, LIST, { input: 'x', user: 'u' }, ['unsupported_field', "'user'"]],
  ['a stream asked', ALL, RANGE, { input: 'x', stream: true }, ['unsupported_field', "'stream'"]],
];

for (const [what, fields, facts, body, refusal] of CASES) {
  t.test(what, (t) => {
    const run = () => validateEmbeddingsRequest({ ...body }, fields, { id: 'm', limits: LIMITS }, facts);
    if (!refusal) {
      t.doesNotThrow(run);
      return t.end();
    }
    const error = (() => {
      try {
        run();
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    t.ok(error instanceof GatewayError, 'a gateway error');
    const { status, code, message } = error as GatewayError;
    t.equal(status, 400);
    t.equal(code, refusal[0]);
    t.match(message, refusal[1]);
    t.end();
  });
}

t.test('inputs and their tokens, in each form', (t) => {
  t.equal(inputsOf('abcdefgh').length, 1);
  t.equal(inputsOf([1, 2]).length, 1);
  t.equal(inputsOf(['a', 'b']).length, 2);
  t.equal(inputsOf([[1], [2]]).length, 2);
  t.equal(inputTokens(['abcdefgh', 'abc']), 3, 'text: about four characters a token, each input rounded up');
  t.equal(inputTokens([[1, 2, 3], [4]]), 4, 'token arrays: counted');
  t.end();
});
