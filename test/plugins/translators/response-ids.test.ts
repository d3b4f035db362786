import t from 'tap';
import fc from 'fast-check';
import { ITEM_PREFIXES, ResponseIds, type ItemKind } from '../../../plugins/translators/responses-output/ids';

const KINDS = Object.keys(ITEM_PREFIXES) as ItemKind[];

t.test("a Response's ids as JSON are what JSON.stringify writes, whatever the upstream's id holds", (t) => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'binary' }),
        fc.constant(undefined),
      ),
      fc.nat(20),
      (upstream, index) => {
        const ids = new ResponseIds(upstream, /^chatcmpl-/);
        t.equal(ids.json(ids.response), JSON.stringify(ids.response));
        t.equal(ids.responseJson, JSON.stringify(ids.response));
        for (const kind of KINDS) {
          const id = ids.item(kind, index);
          t.equal(ids.json(id), JSON.stringify(id));
        }
      },
    ),
    { numRuns: 300 },
  );
  t.end();
});

t.test('the ids are named after the upstream answer, without its prefix', (t) => {
  const ids = new ResponseIds('chatcmpl-a"b', /^chatcmpl-/);
  t.equal(ids.response, 'resp_a"b');
  t.equal(ids.json(ids.item('message', 2)), '"msg_a\\"b_2"');
  t.end();
});
