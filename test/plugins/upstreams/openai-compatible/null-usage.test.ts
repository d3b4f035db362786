import t from 'tap';
import {
  holdsOnlyNullUsage,
  usageKeyAt,
  withoutNullUsage,
} from '../../../../plugins/upstreams/openai-compatible/null-usage';

const cut = (data: string): string | undefined => withoutNullUsage(data, data.indexOf('"usage"'));

void t.test('a top-level "usage":null member is cut from the text, the rest unchanged', (t) => {
  const cases: [string, string][] = [
    ['{"id":"x","usage":null,"model":"m"}', '{"id":"x","model":"m"}'],
    [
      '{"id":"x","choices":[{"delta":{"content":"a"}}],"usage":null}',
      '{"id":"x","choices":[{"delta":{"content":"a"}}]}',
    ],
    ['{"usage":null,"id":"x"}', '{"id":"x"}'],
    ['{"usage":null}', '{}'],
    ['{"c":"\\"}{[","usage":null}', '{"c":"\\"}{["}'],
  ];
  for (const [data, expected] of cases) {
    const out = cut(data);
    t.equal(out, expected, data);
    const { usage, ...rest } = JSON.parse(data) as Record<string, unknown>;
    t.equal(usage, null);
    t.strictSame(JSON.parse(out!), rest, 'the same chunk, less its usage');
  }
  t.end();
});

void t.test('anything less plain is left to the parser', (t) => {
  const cases = [
    '{"choices":[{"usage":null}],"id":"x"}', // not the chunk's own key
    '{"id":"x","usage": null}', // spaced
    '{"id":"x","usage":{"prompt_tokens":1}}', // real usage
    '{"usage":null,"x":{"usage":1}}', // a second "usage"
    '{"id":"x", "usage":null }', // spaces beside the member
  ];
  for (const data of cases) t.equal(cut(data), undefined, data);
  t.end();
});

void t.test('a chunk whose only "usage" is a null member holds no usage figures', (t) => {
  const only = (data: string): boolean => holdsOnlyNullUsage(data, data.indexOf('"usage"'));
  const none = [
    '{"id":"x","usage":null}',
    '{"choices":[{"usage":null}],"id":"x"}', // nested: still no figures anywhere
    '{"c":"say \\"usage\\": 1","usage":null}', // the string's quotes are escaped
  ];
  for (const data of none) t.ok(only(data), data);
  const some = [
    '{"id":"x","usage":{"prompt_tokens":1}}',
    '{"usage":null,"x":{"usage":{"prompt_tokens":1}}}',
    '{"id":"x","usage": null}', // spaced: left to the parser
  ];
  for (const data of some) t.notOk(only(data), data);
  t.end();
});

void t.test('the "usage" key is found where indexOf would find it, past look-alikes', (t) => {
  const cases = [
    '{"id":"x","usage":null}',
    '{"prompt_usage":1,"usage":null}', // `usage"` first found without its opening quote
    '{"a":"usage","usage":{"b":1}}', // a string value "usage" is found as indexOf finds it
    'usage"', // at the very start
    '{"id":"x"}',
  ];
  for (const data of cases) t.equal(usageKeyAt(data), data.indexOf('"usage"'), data);
  t.end();
});
