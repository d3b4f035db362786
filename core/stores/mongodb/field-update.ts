/** A store change as a MongoDB update, shared by the stores whose changes remove a field given as undefined. */
import type { Document, UpdateFilter } from 'mongodb';

/**
 * `$set` for the fields given, `$unset` for those given as undefined (the embedded stores drop them when
 * they write JSON); undefined when the change changes nothing.
 */
export function toUpdate<T extends Document>(change: object): UpdateFilter<T> | undefined {
  const set: Record<string, unknown> = {};
  const unset: Record<string, ''> = {};
  for (const [field, value] of Object.entries(change) as [string, unknown][]) {
    if (value === undefined) unset[field] = '';
    else set[field] = value;
  }
  if (Object.keys(set).length + Object.keys(unset).length === 0) return undefined;
  return {
    ...(Object.keys(set).length > 0 ? { $set: set } : {}),
    ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}),
  } as UpdateFilter<T>;
}
