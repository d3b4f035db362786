/**
 * Where each client API's request carries what people and tools wrote: messages, the system prompt, tool
 * results and a tool call's arguments. Field names, ids, roles and image data are never read.
 */
import { paths, type TextPath } from './text-paths';

export const REQUEST_TEXTS: Readonly<Record<string, readonly TextPath[]>> = {
  'chat-completions': paths(
    'messages.*.content',
    'messages.*.content.*.text',
    'messages.*.tool_calls.*.function.arguments',
  ),
  messages: paths(
    'system',
    'system.*.text',
    'messages.*.content',
    'messages.*.content.*.text',
    'messages.*.content.*.content', // a tool result's text
    'messages.*.content.*.content.*.text',
    'messages.*.content.*.input.**', // a tool call's input: its values
  ),
  responses: paths(
    'instructions',
    'input',
    'input.*.content',
    'input.*.content.*.text',
    'input.*.arguments', // a function call
    'input.*.output', // a function call's result
  ),
  embeddings: paths('input', 'input.*'),
  images: paths('prompt'),
  video: paths('prompt'),
};
