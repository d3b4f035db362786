/** The task options older models take as `--flag value` commands in the prompt. */
export type FlagOption = 'resolution' | 'duration' | 'ratio';

/** Long and short spellings of the flags the simulator reads; others (`--seed`, `--wm`, …) are ignored. */
const FLAG_NAMES: ReadonlyMap<string, FlagOption> = new Map([
  ['resolution', 'resolution'],
  ['rs', 'resolution'],
  ['duration', 'duration'],
  ['dur', 'duration'],
  ['ratio', 'ratio'],
  ['rt', 'ratio'],
]);

// `--name value`, the name at a word start; the value runs to the next whitespace.
const FLAG = /(?:^|\s)--([a-z]+)\s+(\S+)/gi;

/** The raw values of the flags in `text`, the last one winning when a flag repeats. */
export function inlineFlags(text: string): Partial<Record<FlagOption, string>> {
  const found: Partial<Record<FlagOption, string>> = {};
  for (const [, name = '', value = ''] of text.matchAll(FLAG)) {
    const option = FLAG_NAMES.get(name.toLowerCase());
    if (option !== undefined) found[option] = value;
  }
  return found;
}
