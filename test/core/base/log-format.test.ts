import t from 'tap';
import { chosenFormat } from '../../../core/base/log-format';

t.test('auto is pretty at a terminal and JSON in a pipe or a file; the others are what they say', (t) => {
  t.equal(chosenFormat('auto', true), 'pretty', 'auto at a terminal');
  t.equal(chosenFormat('auto', false), 'json', 'auto anywhere else');
  t.equal(chosenFormat('json', true), 'json', 'json at a terminal too');
  t.equal(chosenFormat('pretty', false), 'pretty', 'pretty in a pipe too');
  t.equal(chosenFormat('pretty', true), 'pretty');
  t.equal(chosenFormat('json', false), 'json');
  t.end();
});
