/**
 * The client's names for the chat fields of a translated request. The chat family validates the chat
 * body it is given, so its 400 names chat's field (`max_tokens`, `reasoning_effort`); the client sent
 * the Responses field. Whoever hands the client that error renames the field with this.
 */

/** A chat field name (or path) → the Responses name; tried in order, the first match wins. */
const NAMES: readonly (readonly [RegExp, string])[] = [
  [/^max_(completion_)?tokens$/, 'max_output_tokens'],
  [/^reasoning_effort$/, 'reasoning.effort'],
  [/^response_format(\..*)?$/, 'text.format'],
  [/^verbosity$/, 'text.verbosity'],
  // Messages are built from `instructions` and `input` together: no index maps one to one.
  [/^messages(\[.*)?$/, 'input'],
  [/^tools\[(\d+)\]\.function\.(.+)$/, 'tools[$1].$2'],
];

export function responsesFieldName(chatField: string): string {
  for (const [pattern, name] of NAMES) if (pattern.test(chatField)) return chatField.replace(pattern, name);
  return chatField;
}

/** A 400's message with each `field '…'` named as the client sent it. */
export const responsesFieldMessage = (message: string): string =>
  message.replace(/\bfield '([^']+)'/g, (_all, field: string) => `field '${responsesFieldName(field)}'`);
