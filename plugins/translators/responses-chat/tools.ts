/**
 * `tools` and `tool_choice` as chat completions writes them. A Responses function tool is flat
 * (`{type, name, description, parameters, strict}`); chat nests the same members under `function`.
 * Every other tool type is the Responses API's own (web search, file search, code interpreter, computer
 * use, MCP, …): the chat target cannot run it, so it is refused, naming it.
 */
import { Errors, type JsonObject } from '../../../core/kit';

/** Members of a function tool that chat's `function` object has under the same name. */
const FUNCTION_MEMBERS = ['name', 'description', 'parameters', 'strict'] as const;

/**
 * Members of a Responses function tool that chat has no place for, with the value that asks nothing
 * (the API's default); any other value is refused.
 */
const FUNCTION_DEFAULTS: Readonly<Record<string, (value: unknown) => boolean>> = {
  type: () => true,
  // Tool search: chat sends every tool with every request.
  defer_loading: (v) => v === false,
  // Programmatic tool calling is the Responses API's own.
  allowed_callers: (v) => Array.isArray(v) && v.every((c) => c === 'direct'),
  output_schema: () => false,
};

function chatFunction(tool: JsonObject, at: string, model: string): JsonObject {
  if (typeof tool.name !== 'string' || tool.name === '') {
    throw Errors.invalidRequest(`field '${at}.name' must be a non-empty string`);
  }
  const fn: JsonObject = {};
  for (const [key, value] of Object.entries(tool)) {
    if (value == null) continue;
    if ((FUNCTION_MEMBERS as readonly string[]).includes(key)) fn[key] = value;
    else if (!(Object.hasOwn(FUNCTION_DEFAULTS, key) && FUNCTION_DEFAULTS[key]!(value))) {
      throw Errors.unsupportedField(`${at}.${key}`, model);
    }
  }
  return { type: 'function', function: fn };
}

/** The request's tools in chat's form. */
export const chatTools = (tools: readonly JsonObject[], model: string): JsonObject[] =>
  tools.map((tool, i) => {
    const at = `tools[${i}]`;
    if (tool.type !== 'function') throw Errors.unsupportedField(at, model, `of type '${String(tool.type)}'`);
    return chatFunction(tool, at, model);
  });

/**
 * The tool choice in chat's form: the three modes are alike, a named function nests its name. The other
 * forms (allowed tools, a built-in tool, MCP, custom) are refused.
 */
export function chatToolChoice(choice: string | JsonObject, model: string): unknown {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function' && typeof choice.name === 'string' && choice.name !== '') {
    return { type: 'function', function: { name: choice.name } };
  }
  throw Errors.unsupportedField('tool_choice', model, `of type '${String(choice.type)}'`);
}
