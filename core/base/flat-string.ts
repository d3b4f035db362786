/**
 * Text built by concatenation is, in V8, a tree of its pieces until something reads it whole. A string
 * kept for a while (a usage line queued for its batch) outlives the young generation, and the collector
 * then promotes the whole tree, pieces and nodes, where only a major collection frees it: under load the
 * queued usage lines alone brought one every two seconds. Made flat as it is queued, a 220-character
 * line keeps about 250 bytes instead of 1,400, and its pieces die young.
 */

/** Matching reads its subject whole, so V8 flattens it first; a match is never dropped as unused. */
const READS_WHOLE = /^/;

export function flatString(text: string): string {
  READS_WHOLE.test(text);
  return text;
}
