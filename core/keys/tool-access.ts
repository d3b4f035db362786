/**
 * Which MCP tools a call may see and use, by its key's and its team's `allowed_tools`: globs over tool
 * names as the gateway exposes them (`<server>__<tool>`). A list that is absent or empty allows every
 * tool, as an empty `allowed_models` allows every model; where both have one, a tool must match both
 * (the team bounds all its keys, a key narrows it further).
 */
import { globMatcher } from '../base/glob';
import type { KeyRecord } from '../stores/key-store';
import type { TeamRecord } from '../stores/team-store';

type ToolLimited = Pick<KeyRecord | TeamRecord, 'allowed_tools'>;

/**
 * The check for one call, its globs compiled once: the endpoint builds it per request and asks it of
 * every tool it lists or is asked to call.
 */
export function toolsAllowedBy(
  key: ToolLimited | undefined,
  team: ToolLimited | undefined,
): (name: string) => boolean {
  const lists = [key?.allowed_tools, team?.allowed_tools]
    .filter((list): list is readonly string[] => list !== undefined && list.length > 0)
    .map((list) => list.map(globMatcher));
  if (lists.length === 0) return () => true;
  return (name) => lists.every((matchers) => matchers.some((matches) => matches(name)));
}
