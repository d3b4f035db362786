/**
 * The client's names for the messages fields of a translated request (responses-output/field-names.ts):
 * the messages family's 400 names messages' field (`max_tokens`, `thinking`); the client sent the
 * Responses field.
 */
import { fieldRenamer } from '../responses-output/field-names';

const MESSAGES_NAMES = fieldRenamer([
  [/^max_tokens$/, 'max_output_tokens'],
  [/^thinking(\..*)?$/, 'reasoning.effort'],
  [/^output_config(\..*)?$/, 'text.format'],
  // The system text and the turns are built from `instructions` and `input` together.
  [/^(messages|system)(\[.*|\..*)?$/, 'input'],
  [/^tools\[(\d+)\]\.input_schema(.*)$/, 'tools[$1].parameters$2'],
  [/^tool_choice(\..*)?$/, 'tool_choice'],
  // Messages' metadata holds only the end user's id.
  [/^metadata(\..*)?$/, 'user'],
]);

export const responsesFieldName = MESSAGES_NAMES.name;
export const responsesFieldMessage = MESSAGES_NAMES.message;
