/**
 * The rules over whole texts and over a stream's pieces (decide.ts, held-text.ts), with finders written
 * here for literals: what goes on, what is held, what a block keeps, and how masks and logs combine.
 */
import t from 'tap';
import { inspect } from '../../../../plugins/middleware/guardrails/decide';
import { HeldText } from '../../../../plugins/middleware/guardrails/stream/held-text';
import type { Found, Matcher } from '../../../../plugins/middleware/guardrails/finders/matcher';
import type { Rule } from '../../../../plugins/middleware/guardrails/rules';

/** Finds `word` wherever it is; a possible match is a tail of the text that begins it. */
function literal(word: string, placeholder = `[${word.toUpperCase()}]`): Matcher {
  return {
    placeholder,
    find(text, from) {
      const out: Found[] = [];
      for (let at = text.indexOf(word, from); at >= 0; at = text.indexOf(word, at + word.length))
        out.push({ start: at, end: at + word.length });
      return out;
    },
    openFrom(text, from) {
      for (let p = from; p < text.length; p++) {
        const tail = text.slice(p);
        if (word.startsWith(tail)) return p;
      }
      return text.length;
    },
  };
}

const rule = (name: string, action: Rule['action'], ...matchers: Matcher[]): Rule => ({
  name,
  action,
  matchers,
});

t.test('whole texts', (t) => {
  const mask = rule('m', 'mask', literal('cat'), literal('dog'));
  const block = rule('b', 'block', literal('wolf'));
  const log = rule('l', 'log', literal('at'));
  t.match(inspect('a cat and a dog', [mask]), { out: 'a [CAT] and a [DOG]', blocked: undefined });
  const blocked = inspect('a cat, then a wolf and a dog', [mask, block, log]);
  t.equal(blocked.out, 'a [CAT], then a ', 'masks before the block apply; nothing from the block on');
  t.equal(blocked.blocked, block);
  t.strictSame(new Set(blocked.acted), new Set([block, mask, log]));
  t.match(inspect('a cat', [log]), { out: 'a cat', acted: [log] }, 'a log changes nothing');
  t.match(
    inspect('catwolf', [rule('m', 'mask', literal('catw')), block]),
    { out: '', blocked: block },
    'a mask running into a block is withheld',
  );
  t.match(inspect('nothing here', [mask, block]), { out: 'nothing here', acted: [] });
  t.end();
});

t.test('a stream: only what could still match is held', (t) => {
  const held = new HeldText([rule('b', 'block', literal('Zephyr'))], 1024);
  t.match(held.push('Project '), { out: 'Project ' }, 'no possible match: out at once');
  t.match(held.push('Ze'), { out: '' }, 'a possible start waits');
  t.equal(held.held, 'Ze');
  t.match(held.push('bra'), { out: 'Zebra' }, 'released by the piece that rules it out');
  t.match(held.push(' and Zep'), { out: ' and ' });
  const end = held.push('hyr!');
  t.equal(end.out, '', 'nothing of the match');
  t.equal(end.blocked?.name, 'b');
  t.equal(held.released, 'Project Zebra and ');
  t.end();
});

t.test('a stream: masks across pieces, and a flush decides the rest', (t) => {
  const held = new HeldText([rule('m', 'mask', literal('secret', '***'))], 1024);
  const outs = ['top se', 'cr', 'et is', ' sec'].map((p) => held.push(p).out);
  t.strictSame(outs, ['top ', '', '*** i', 's '], 'an `s` could begin another');
  t.equal(held.flush().out, 'sec', 'an unfinished start is no match');
  t.equal(held.released, 'top *** is sec');
  t.end();
});

t.test('a stream never splits a surrogate pair, and holds at most its bound', (t) => {
  const rocket = '\u{1F680}';
  const held = new HeldText([rule('b', 'block', literal(`x${rocket}y`))], 4);
  t.equal(held.push(`a${rocket[0]}`).out, 'a', 'half a character waits');
  t.equal(held.push(`${rocket[1]}b`).out, `${rocket}b`);
  const open = new HeldText([rule('b', 'block', literal('aaaaaaaaaa'))], 4);
  t.equal(open.push('aaaaaaa').out, 'aaa', 'beyond the bound the oldest goes');
  t.equal(open.held, 'aaaa');
  t.end();
});
