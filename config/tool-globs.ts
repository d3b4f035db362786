/**
 * The MCP tools a key or a team may use (KeyRecord.allowed_tools, TeamRecord.allowed_tools): globs over
 * tool names as the gateway's MCP endpoint exposes them, `<server>__<tool>`. One rule for what such a
 * list may hold, read by gateway.yaml's declared keys and by the admin API alike.
 */
import { z } from 'zod';
import { distinctList } from './distinct-list';

/** A tool name (MCP names tools with [A-Za-z0-9_.-]), or a glob over names: `*` matches any run. */
export const TOOL_GLOB = /^[A-Za-z0-9_.*-]{1,160}$/;
export const MAX_TOOL_GLOBS = 100;

export const TOOL_GLOB_EXPECTED =
  "a tool name or glob: 1 to 160 of A-Z, a-z, 0-9, '_', '.', '-' and '*' (any run of characters)";
export const TOOL_GLOBS_EXPECTED = `an array of at most ${MAX_TOOL_GLOBS} distinct tool names or globs`;

/** One entry: a tool's name (`demo__add`) or a glob over names (`search__*`). */
export const toolGlob = z.string().regex(TOOL_GLOB, `must be ${TOOL_GLOB_EXPECTED}`);

/** A list of entries; empty means every tool (stores keep that as no field at all). */
export const toolGlobs = distinctList(toolGlob, MAX_TOOL_GLOBS, TOOL_GLOBS_EXPECTED, 'lists');
