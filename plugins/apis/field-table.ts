/** Walking a request body against an API's field table (the contract's per-field rules). */
import type { JsonObject } from '../../core/context';

/**
 * Calls `check` for each of the body's fields that the table lists, with its rule. Fields the table does
 * not list pass through to the upstream unchanged, and a field sent as `null` counts as absent. Own
 * properties only: a body key such as `constructor` is an unlisted field, not a rule. (A callback, not a
 * generator: this runs on every request.)
 */
export function forEachListedField<Rule>(
  body: JsonObject,
  table: Readonly<Record<string, Rule>>,
  check: (field: string, value: unknown, rule: Rule) => void,
): void {
  for (const field in body) {
    const value = body[field];
    if (value === null || value === undefined || !Object.hasOwn(table, field)) continue;
    check(field, value, table[field]!);
  }
}
