/**
 * The client's names for the chat fields of a translated request (responses-output/field-names.ts):
 * the chat family's 400 names chat's field (`max_tokens`, `reasoning_effort`); the client sent the
 * Responses field.
 */
import { fieldRenamer } from '../responses-output/field-names';

const CHAT_NAMES = fieldRenamer([
  [/^max_(completion_)?tokens$/, 'max_output_tokens'],
  [/^reasoning_effort$/, 'reasoning.effort'],
  [/^response_format(\..*)?$/, 'text.format'],
  [/^verbosity$/, 'text.verbosity'],
  // Messages are built from `instructions` and `input` together: no index maps one to one.
  [/^messages(\[.*)?$/, 'input'],
  [/^tools\[(\d+)\]\.function\.(.+)$/, 'tools[$1].$2'],
]);

export const responsesFieldName = CHAT_NAMES.name;
export const responsesFieldMessage = CHAT_NAMES.message;
