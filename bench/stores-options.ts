/** `npm run bench:stores`'s flags: how many keys to make and how many usage records to write. */
import { parseArgs } from 'node:util';
import { positiveInt } from './options';

/** The scale of a run: a platform's size by default, smaller to try it out. */
export interface StoresOptions {
  readonly keys: number;
  readonly records: number;
}

export const STORES_USAGE = 'usage: npm run bench:stores -- [--keys 100000] [--records 10000000]';

/** Enough keys that a tenth of them is a block worth timing. */
const MIN_KEYS = 10;

/** Parses the flags; throws with a readable message on anything unknown or invalid. */
export function parseStoresOptions(argv: readonly string[]): StoresOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      keys: { type: 'string', default: '100000' },
      records: { type: 'string', default: '10000000' },
    },
  });
  return {
    keys: positiveInt('keys', values.keys, MIN_KEYS),
    records: positiveInt('records', values.records, 1),
  };
}
