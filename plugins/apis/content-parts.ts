/**
 * Checking the parts of a content array (chat message parts, messages content blocks) against the types
 * an API knows: a part of an unknown type, or a known type with a malformed body, is refused with a 400
 * naming its path, instead of being forwarded for the upstream to interpret.
 */
import type { z } from 'zod';
import { Errors } from '../../core/kit/plugin';
import { isJsonObject } from '../../core/kit/json';

/** Part type → the schema of a part of that type (the `type` key itself is checked by the table). */
export type PartTable = Readonly<Record<string, z.ZodType>>;

/** Checks each element of `parts` (at `path`, e.g. `messages[0].content`); throws 400 naming the first bad one. */
export function checkParts(parts: readonly unknown[], table: PartTable, path: string): void {
  parts.forEach((part, i) => {
    const at = `${path}[${i}]`;
    const type = isJsonObject(part) ? part.type : undefined;
    if (typeof type !== 'string' || !Object.hasOwn(table, type)) {
      throw Errors.invalidRequest(`field '${at}.type' must be one of ${Object.keys(table).join(', ')}`);
    }
    if (!table[type]!.safeParse(part).success) {
      throw Errors.invalidRequest(`field '${at}' is not a valid '${type}' part`);
    }
  });
}
