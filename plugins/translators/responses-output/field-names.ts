/**
 * The client's names for the target API's fields of a translated request. The family validates the body
 * it is given, so its 400 names the target's field (chat's `max_tokens`, messages' `thinking`); the
 * client sent the Responses field. Whoever hands the client that error renames the field with a
 * translator's table of names.
 */

/** A target field name (or path) → the Responses name; tried in order, the first match wins. */
export type FieldNames = readonly (readonly [RegExp, string])[];

export interface FieldRenamer {
  /** The Responses name of a target field. */
  readonly name: (field: string) => string;
  /** A 400's message with each `field '…'` named as the client sent it. */
  readonly message: (message: string) => string;
}

export function fieldRenamer(names: FieldNames): FieldRenamer {
  const name = (field: string): string => {
    for (const [pattern, to] of names) if (pattern.test(field)) return field.replace(pattern, to);
    return field;
  };
  return {
    name,
    message: (message) =>
      message.replace(/\bfield '([^']+)'/g, (_all, field: string) => `field '${name(field)}'`),
  };
}
