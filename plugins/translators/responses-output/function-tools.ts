/**
 * The Responses API's function tools and tool choice, read for any target. A function tool is flat
 * (`{type, name, description, parameters, strict}`); each target writes the members it has in its own
 * shape. Every other tool type is the Responses API's own (web search, file search, code interpreter,
 * computer use, MCP, …): no target here can run it, so it is refused, naming it.
 */
import { Errors } from '../../../core/kit/plugin';
import type { JsonObject } from '../../../core/kit/json';

/**
 * Members of a Responses function tool that no target has a place for, with the value that asks nothing
 * (the API's default); any other value is refused.
 */
const FUNCTION_DEFAULTS: Readonly<Record<string, (value: unknown) => boolean>> = {
  type: () => true,
  // Tool search: the targets send every tool with every request.
  defer_loading: (v) => v === false,
  // Programmatic tool calling is the Responses API's own.
  allowed_callers: (v) => Array.isArray(v) && v.every((c) => c === 'direct'),
  output_schema: () => false,
};

/**
 * The members of each function tool that the target has (by their Responses names, `taken`), each
 * checked: a tool of another type, or a member the target has no place for, is refused.
 */
export function functionTools(
  tools: readonly JsonObject[],
  taken: readonly string[],
  model: string,
): JsonObject[] {
  return tools.map((tool, i) => {
    const at = `tools[${i}]`;
    if (tool.type !== 'function') throw Errors.unsupportedField(at, model, `of type '${String(tool.type)}'`);
    if (typeof tool.name !== 'string' || tool.name === '') {
      throw Errors.invalidRequest(`field '${at}.name' must be a non-empty string`);
    }
    const fn: JsonObject = {};
    for (const [key, value] of Object.entries(tool)) {
      if (value == null) continue;
      if (taken.includes(key)) fn[key] = value;
      else if (!(Object.hasOwn(FUNCTION_DEFAULTS, key) && FUNCTION_DEFAULTS[key]!(value))) {
        throw Errors.unsupportedField(`${at}.${key}`, model);
      }
    }
    return fn;
  });
}

/**
 * The named function of a tool choice object; the other forms (allowed tools, a built-in tool, MCP,
 * custom) are refused.
 */
export function chosenFunction(choice: JsonObject, model: string): string {
  if (choice.type === 'function' && typeof choice.name === 'string' && choice.name !== '') return choice.name;
  throw Errors.unsupportedField('tool_choice', model, `of type '${String(choice.type)}'`);
}
