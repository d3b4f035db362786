/**
 * The `mcp:` section of gateway.yaml: the tool servers the gateway's MCP endpoint fronts. Every problem an
 * entry can have that the file alone shows is found here, at load and at reload, naming the entry.
 * @example
 * mcp:
 *   servers:
 *     github: { url: https://mcp.internal/github/mcp, headers: { authorization: 'Bearer ${GITHUB_MCP_TOKEN}' } }
 *     search: { url: http://127.0.0.1:7000/mcp, tools: ['search', 'fetch_*'], timeout: 30s }
 *   prices: { 'search__*': 0.001 }
 */
import { z } from 'zod';
import { duration, urlProblem } from '../../../core/kit/plugin';
import { SEPARATOR } from './tool-names';

/**
 * A server's name starts every name it exposes (`<server>__<tool>`): letters, digits, `-` and `_`, and no
 * `__`, so a tool's gateway name splits back into its server and its own name one way only.
 */
const serverName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a server name is 1-64 letters, digits, - or _')
  .refine((name) => !name.includes(SEPARATOR), `a server name must not contain '${SEPARATOR}'`)
  .refine(
    (name) => !name.startsWith('_') && !name.endsWith('_'),
    'a server name must not start or end with _',
  );

const toolGlob = z
  .string()
  .regex(/^[A-Za-z0-9_.*-]{1,128}$/, 'a tool pattern is 1-128 of A-Z a-z 0-9 _ . - and *');

const server = z
  .object({
    url: z.string().superRefine((raw, ctx) => {
      // The shipped file builds the simulator's URL from its port, which may be 0 until it is placed.
      const problem = urlProblem(raw, { portZero: 'allow' });
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    /** Sent to this server on every request: its credential stays in the gateway. */
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'not a header name'), z.string())
      .default({}),
    /** The server's own tool names (or `*` patterns) the gateway exposes; the rest are not reachable through it. */
    tools: z.array(toolGlob).min(1).default(['*']),
    /** How long one request to the server may take (a tool call, a listing) before the client gets an error. */
    timeout: duration.refine((ms) => ms >= 1, 'must be at least 1ms').default(30_000),
  })
  .strict()
  .superRefine(({ headers }, ctx) => {
    // The gateway speaks the transport itself: these are its to set, per session.
    for (const name of Object.keys(headers)) {
      if (/^(mcp-session-id|mcp-protocol-version|content-type|accept|content-length|host)$/i.test(name))
        ctx.addIssue({ code: 'custom', path: ['headers', name], message: 'is set by the gateway, not here' });
    }
  });

export const mcpOptions = z
  .object({
    servers: z.record(serverName, server).default({}),
    /**
     * What a call costs, in the currency of `prices:`, by the tool's gateway name or a `*` pattern of it
     * (the exact name first, then the first pattern that matches); a tool without one costs nothing known.
     */
    prices: z.record(toolGlob, z.number().nonnegative()).default({}),
    /** How long a client's session lasts from its `initialize`; after it, the client starts a new one. */
    session_ttl: duration.refine((ms) => ms >= 1_000, 'must be at least 1s').default(86_400_000),
  })
  .strict();

export type McpOptions = z.output<typeof mcpOptions>;
export type ServerConfig = McpOptions['servers'][string];
