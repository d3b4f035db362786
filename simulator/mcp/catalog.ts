/**
 * The simulator's MCP prompt and resource: one of each, fixed, so that a gateway's aggregation of prompts
 * and resources across tool servers has something to list and read.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** What `sim://readme` holds. */
export const README_TEXT =
  'The upstream simulator’s MCP server: tools add, get_weather, slow and secret; prompt greeting.\n';

/** Registers the prompt `greeting` and the resource `sim://readme` on `server`. */
export function registerCatalog(server: McpServer): void {
  server.registerPrompt(
    'greeting',
    { description: 'Greets someone by name.', argsSchema: { name: z.string() } },
    ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }],
    }),
  );
  server.registerResource(
    'readme',
    'sim://readme',
    { description: 'What this MCP server offers.', mimeType: 'text/plain' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: README_TEXT }] }),
  );
}
