/**
 * Reading the content parts of a Responses input item, for any target: each part type the target has a
 * counterpart for is mapped by one rule of its table; any other, and any member of a part the target
 * cannot carry, is refused with a 400 naming its path, so nothing the client sent is dropped without a
 * word. (The parts' shapes were checked by validateResponsesRequest.)
 */
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';

/** Maps one part found at `at` (e.g. `input[0].content[1]`) for `model`. */
export type PartRule = (part: JsonObject, at: string, model: string) => JsonObject;

/** Refuses `key` of the part unless it is absent, null or the API's default. */
export function refuseUnlessDefault(
  part: JsonObject,
  key: string,
  at: string,
  model: string,
  fallback?: unknown,
): void {
  const value = part[key];
  if (value != null && value !== fallback) throw Errors.unsupportedField(`${at}.${key}`, model);
}

/** The parts found at `at`, each by the rule of its type in `rules`. */
export function mapParts(
  parts: readonly JsonObject[],
  rules: Readonly<Record<string, PartRule>>,
  at: string,
  model: string,
): JsonObject[] {
  return parts.map((part, j) => {
    const here = `${at}[${j}]`;
    const type = String(part.type);
    const rule = Object.hasOwn(rules, type) ? rules[type] : undefined;
    if (!rule) throw Errors.unsupportedField(here, model, `of type '${type}'`);
    return rule(part, here, model);
  });
}
