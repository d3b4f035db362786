/**
 * `tools` and `tool_choice` as chat completions writes them: chat nests a function tool's members under
 * `function` (responses-output/function-tools.ts reads and checks them).
 */
import type { JsonObject } from '../../../core/kit/json';
import { chosenFunction, functionTools } from '../responses-output/function-tools';

/** Members of a function tool that chat's `function` object has under the same name. */
const FUNCTION_MEMBERS = ['name', 'description', 'parameters', 'strict'] as const;

/** The request's tools in chat's form. */
export const chatTools = (tools: readonly JsonObject[], model: string): JsonObject[] =>
  functionTools(tools, FUNCTION_MEMBERS, model).map((fn) => ({ type: 'function', function: fn }));

/** The tool choice in chat's form: the three modes are alike, a named function nests its name. */
export const chatToolChoice = (choice: string | JsonObject, model: string): unknown =>
  typeof choice === 'string'
    ? choice
    : { type: 'function', function: { name: chosenFunction(choice, model) } };
