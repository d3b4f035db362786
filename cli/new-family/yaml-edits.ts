/**
 * Adds entries to a YAML file without re-laying it out. The yaml package's Document API finds where each
 * map ends and renders the new entries, which are spliced into the text there: everything else, comments,
 * flow maps and line breaks included, stays byte for byte (printing the whole document again would move
 * some comments and join lines). The result is parsed again and must be the old document plus the entries.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isCollection, isMap, isNode, parseDocument, type YAMLMap } from 'yaml';
import { globMatch } from '../../core/base/glob';
import { Refusal } from './args';

/** One entry for a top-level map (`upstreams:`, `routes:`, `prices:`). */
export interface YamlEntry {
  readonly section: string;
  readonly key: string;
  readonly value: unknown;
  /** A comment line above the entry. */
  readonly comment?: string;
  /** Paths under the value whose collections are written in flow style, `{ a: 1 }`; `[]` is the value. */
  readonly flowAt?: readonly (readonly (string | number)[])[];
}

const INDENT = 2;

/** Parses `text` as `file`; a file that does not parse is left for its owner to mend. */
function parsed(text: string, file: string) {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Refusal(`${file} does not parse: ${doc.errors[0]!.message}`);
  return doc;
}

/** Keys of `entries` the file already has: each names what a second family of the name would clash with. */
export function existingEntries(text: string, file: string, entries: readonly YamlEntry[]): string[] {
  const doc = parsed(text, file);
  return entries.filter((e) => doc.hasIn([e.section, e.key])).map((e) => `${file}: ${e.section}.${e.key}`);
}

/**
 * The `prices:` patterns that already match one of `models`. Prices are looked up exactly, then by the
 * first pattern that matches, so such a pattern would bill the new family at another family's figures.
 */
export function pricedBy(text: string, file: string, models: readonly string[]): string[] {
  const doc = parsed(text, file).toJS({ maxAliasCount: -1 }) as { prices?: unknown } | null;
  const prices = doc?.prices;
  const patterns = prices !== null && typeof prices === 'object' ? Object.keys(prices) : [];
  return patterns.flatMap((pattern) => {
    const model = models.find((m) => globMatch(pattern, m));
    return model ? [`${file}: prices.${pattern} would price ${model}`] : [];
  });
}

/** The entry as block YAML at `indent`, ending with a newline. */
function rendered(entry: YamlEntry, indent: number): string {
  const doc = new Document({ [entry.key]: entry.value });
  for (const path of entry.flowAt ?? []) {
    const node: unknown = doc.getIn([entry.key, ...path], true);
    if (isCollection(node)) node.flow = true;
  }
  const comment = entry.comment === undefined ? '' : `# ${entry.comment}\n`;
  const pad = ' '.repeat(indent);
  return (comment + doc.toString({ lineWidth: 0 }))
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

/** The column `offset` is at. */
const columnOf = (text: string, offset: number): number => offset - (text.lastIndexOf('\n', offset - 1) + 1);

/** Just past the end of the line `offset` is on (past its comment, if any). */
function afterLineOf(text: string, offset: number): number {
  let end = offset;
  while (end > 0 && /\s/.test(text.charAt(end - 1))) end--;
  const newline = text.indexOf('\n', end);
  return newline < 0 ? text.length : newline + 1;
}

type Splice = { readonly at: number; readonly to: number; readonly text: string };

/** A section the file lacks: a new one at its end. */
function newSection(text: string, entry: YamlEntry): Splice {
  const lead = text.endsWith('\n') ? '\n' : '\n\n';
  return { at: text.length, to: text.length, text: `${lead}${entry.section}:\n${rendered(entry, INDENT)}` };
}

/** A block map: the entry goes on the line after its last entry, at the same indent. */
function afterLastEntry(text: string, map: YAMLMap, entry: YamlEntry): Splice | undefined {
  const last = map.items.at(-1);
  if (!isNode(last?.key) || !isNode(last.value) || !last.key.range || !last.value.range) return undefined;
  const at = afterLineOf(text, last.value.range[1]);
  return { at, to: at, text: rendered(entry, columnOf(text, last.key.range[0])) };
}

/** `routes: {}` becomes a block map holding the entry; the comment lines after it stay where they are. */
function replacingEmptyFlow(
  text: string,
  range: readonly [number, number, number],
  entry: YamlEntry,
): Splice {
  let at = range[0];
  while (at > 0 && text.charAt(at - 1) === ' ') at--;
  return { at, to: range[1], text: `\n${rendered(entry, INDENT).replace(/\n$/, '')}` };
}

/** Where and what to splice to add `entry` to its top-level map. */
function spliceFor(text: string, file: string, section: unknown, entry: YamlEntry): Splice {
  if (!isMap(section) || !section.range) return newSection(text, entry);
  let splice: Splice | undefined;
  if (!section.flow) splice = afterLastEntry(text, section, entry);
  else if (section.items.length === 0) splice = replacingEmptyFlow(text, section.range, entry);
  if (splice) return splice;
  throw new Refusal(`${file}: cannot add ${entry.key} to ${entry.section} as it is written; add it by hand`);
}

/** `text` with `entries` added, each after the last entry of its section (see the file's comment). */
export function withEntries(text: string, file: string, entries: readonly YamlEntry[]): string {
  let out = text;
  for (const entry of entries) {
    const splice = spliceFor(out, file, parsed(out, file).get(entry.section, true), entry);
    out = out.slice(0, splice.at) + splice.text + out.slice(splice.to);
  }
  checkOnlyAdded(text, out, file, entries);
  return out;
}

/** Throws unless `after` parses to `before` plus the entries, and nothing else. */
function checkOnlyAdded(before: string, after: string, file: string, entries: readonly YamlEntry[]): void {
  const expected = parsed(before, file).toJS() as Record<string, Record<string, unknown> | null>;
  for (const e of entries) expected[e.section] = { ...(expected[e.section] ?? {}), [e.key]: e.value };
  if (!isDeepStrictEqual(parsed(after, file).toJS(), expected)) {
    throw new Error(`${file}: the entries could not be added cleanly; nothing was written`);
  }
}
