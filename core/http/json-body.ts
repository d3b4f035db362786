/**
 * Parses a client's JSON body so that what is forwarded is exactly what was validated. JSON.parse alone
 * would accept things an upstream may read differently from the gateway: bytes that are not UTF-8 (the
 * gateway would check a lossy decode while the raw bytes go upstream), duplicate keys (the gateway reads
 * the last `model`, an upstream may read the first), and `__proto__` keys (prototype pollution in any
 * JavaScript that merges the body). It also caps nesting, so no later recursive walk (validation,
 * re-serialisation, an upstream's parser) can be made to overflow its stack.
 *
 * One pass over the text (iterative, so 300,000 levels cost nothing but time) checks structure; then
 * V8's JSON.parse builds the value. No JSON library does both checks without recursion at this speed.
 */
import { isUtf8 } from 'node:buffer';
import { Errors } from '../base/errors';
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  isJsonObject,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  stringEnd,
  type JsonObject,
} from '../base/json';
import { rejectDestinationFields } from './destination-fields';

/** Keys no client body may carry at any depth: they reach JavaScript prototypes, not data. */
const POISON_KEYS: ReadonlySet<string> = new Set(['__proto__']);

/** An array level in the scan's stack (objects hold the keys seen so far). */
const ARRAY = null;

/**
 * The keys seen in one open object: a list while it has few (most objects, each scanned without making a
 * Set), a Set past SET_AT, so that an object of many keys is still checked in linear time.
 */
type Keys = string[] | Set<string>;
const SET_AT = 16;

/** `keys` with `key` added (a Set once the list is long), or 400 when the object already has it. */
function withKey(keys: Keys, key: string): Keys {
  if (!Array.isArray(keys)) {
    if (keys.has(key)) throw Errors.duplicateKey(key);
    return keys.add(key);
  }
  if (keys.includes(key)) throw Errors.duplicateKey(key);
  if (keys.length < SET_AT) {
    keys.push(key);
    return keys;
  }
  return new Set(keys).add(key);
}

/** The key a string token spells, decoding escapes only when it has any. */
function keyAt(text: string, start: number, end: number, escaped: boolean): string {
  return escaped ? (JSON.parse(text.slice(start, end + 1)) as string) : text.slice(start + 1, end);
}

/**
 * Checks nesting depth and keys in one pass. Garbage is tolerated here (JSON.parse rejects it next):
 * the scan only has to be right for input that JSON.parse would accept. It reads the decoded text that
 * JSON.parse reads next, so a key is a slice of it rather than a decode of its bytes. A string, most of
 * a body's text (its prompts), is skipped whole: its closing quote is found with indexOf, and whether it
 * holds an escape, by where the next backslash of the text is.
 */
function scanStructure(text: string, maxDepth: number): void {
  const levels: (Keys | typeof ARRAY)[] = [];
  let backslashAt = text.indexOf('\\');
  let keyStart = -1;
  let keyEnd = -1;
  let keyEscaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return; // a string never closed: JSON.parse rejects the text
      if (backslashAt >= 0 && backslashAt < i) backslashAt = text.indexOf('\\', i);
      keyEscaped = backslashAt >= 0 && backslashAt < end;
      keyStart = i;
      keyEnd = i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (levels.length >= maxDepth) throw Errors.jsonTooDeep(maxDepth);
      levels.push(c === OPEN_OBJECT ? [] : ARRAY);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      levels.pop();
    } else if (c === COLON && keyEnd > keyStart) {
      const keys = levels[levels.length - 1];
      if (!keys) continue; // not inside an object: invalid JSON, JSON.parse will say so
      const key = keyAt(text, keyStart, keyEnd, keyEscaped);
      keyStart = keyEnd = -1; // a string names at most one key
      if (POISON_KEYS.has(key)) throw Errors.forbiddenKey(key);
      levels[levels.length - 1] = withKey(keys, key);
    }
  }
}

/**
 * The body as a JSON object, or a 400 saying what is wrong: not UTF-8, too deep, a duplicate or
 * forbidden key, not JSON, not an object, or a field that would choose the upstream or its credential.
 */
export function parseJsonBody(raw: Buffer, maxDepth: number): JsonObject {
  if (!isUtf8(raw)) throw Errors.invalidJson('the body is not valid UTF-8');
  const text = raw.toString('utf8');
  scanStructure(text, maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw Errors.invalidJson((e as Error).message);
  }
  if (!isJsonObject(value)) throw Errors.invalidRequest('the request body must be a JSON object');
  rejectDestinationFields(value);
  return value;
}
