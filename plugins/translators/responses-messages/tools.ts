/**
 * `tools`, `tool_choice` and `parallel_tool_calls` as messages writes them. A function tool's
 * `parameters` is messages' `input_schema` (responses-output/function-tools.ts reads and checks it);
 * the tool choice's modes are messages' `auto`, `none` and `any`, a named function its `tool`.
 */
import type { JsonObject } from '../../../core/kit/json';
import { chosenFunction, functionTools } from '../responses-output/function-tools';

/** Members of a function tool → messages' name for them. */
const TOOL_MEMBERS: Readonly<Record<string, string>> = {
  name: 'name',
  description: 'description',
  parameters: 'input_schema',
  strict: 'strict',
};

/** An object schema that takes anything: messages requires `input_schema`, Responses does not. */
const ANY_INPUT: JsonObject = { type: 'object' };

/** The request's tools in messages' form. */
export const messagesTools = (tools: readonly JsonObject[], model: string): JsonObject[] =>
  functionTools(tools, Object.keys(TOOL_MEMBERS), model).map((fn) => {
    const tool: JsonObject = { input_schema: ANY_INPUT };
    for (const [key, value] of Object.entries(fn)) tool[TOOL_MEMBERS[key]!] = value;
    return tool;
  });

/** Responses' tool choice modes → messages' types. */
const MODES: Readonly<Record<string, string>> = { auto: 'auto', none: 'none', required: 'any' };

/** The tool choice in messages' form. */
export const messagesToolChoice = (choice: string | JsonObject, model: string): JsonObject =>
  typeof choice === 'string'
    ? { type: MODES[choice] }
    : { type: 'tool', name: chosenFunction(choice, model) };

/**
 * `parallel_tool_calls: false` is messages' `disable_parallel_tool_use` on the tool choice (`auto` when
 * the client chose none), which only means something where there are tools and they may be used.
 */
export function disableParallelCalls(target: JsonObject): void {
  if (!Array.isArray(target.tools)) return;
  const choice = (target.tool_choice as JsonObject | undefined) ?? { type: 'auto' };
  if (choice.type === 'none') return;
  target.tool_choice = { ...choice, disable_parallel_tool_use: true };
}
