/**
 * The tools the simulator's MCP server offers. Each answers the same for the same arguments, so tests can
 * assert exact results: `add` sums, `get_weather` derives a report from the city's name, `slow` takes steps
 * with progress and honours cancellation, `secret` stands for a tool a key must not reach. Every call is
 * recorded in {@link ToolCalls}.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolCall, ToolCalls } from './tool-calls';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(isError ? { isError } : {}),
});

/** Runs `run` as a recorded call of `tool`: the record ends done, error (an error result or a throw) or cancelled. */
async function recorded(
  calls: ToolCalls,
  tool: string,
  args: unknown,
  extra: Extra,
  run: (call: ToolCall) => CallToolResult | Promise<CallToolResult>,
): Promise<CallToolResult> {
  const call = calls.start(extra.sessionId, tool, args);
  try {
    const result = await run(call);
    call.outcome = extra.signal.aborted ? 'cancelled' : result.isError ? 'error' : 'done';
    return result;
  } catch (e) {
    call.outcome = 'error';
    throw e;
  }
}

const CONDITIONS = ['clear', 'cloudy', 'rain', 'windy', 'fog'] as const;

/**
 * A report made from the city's name alone (case aside): the same city always gets the same one, e.g.
 * `Paris: 0°C, clear`.
 */
export function weatherOf(city: string): string {
  let hash = 0;
  for (const ch of city.toLowerCase()) hash = (hash * 31 + ch.codePointAt(0)!) % 1_000_003;
  const celsius = (hash % 36) - 5;
  return `${city}: ${celsius}°C, ${CONDITIONS[Math.floor(hash / 36) % CONDITIONS.length]}`;
}

/** Waits `ms`; resolves false instead, at once, when `signal` aborts first (a cancelled call). */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `slow`'s steps: the first at once, each next after `delayMs`; a progress notification per step when the
 * caller sent a progress token. A cancelled call (or a closed session) stops between steps.
 */
async function takeSteps(
  call: ToolCall,
  steps: number,
  delayMs: number,
  extra: Extra,
): Promise<CallToolResult> {
  const token = extra._meta?.progressToken;
  for (let step = 1; step <= steps; step++) {
    if (step > 1 && !(await pause(delayMs, extra.signal))) break;
    if (extra.signal.aborted) break;
    call.steps = step;
    if (token === undefined) continue;
    await extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: token, progress: step, total: steps, message: `step ${step}` },
    });
  }
  // The SDK sends no answer to a cancelled request; this one is for the record.
  if (extra.signal.aborted) return text(`cancelled after ${call.steps} steps`, true);
  return text(`done after ${steps} steps`);
}

/** Registers the simulator's tools on `server`, each recording its calls in `calls`. */
export function registerTools(server: McpServer, calls: ToolCalls): void {
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    (args, extra) =>
      recorded(calls, 'add', args, extra, () => {
        const sum = args.a + args.b;
        return { ...text(String(sum)), structuredContent: { sum } };
      }),
  );
  server.registerTool(
    'get_weather',
    {
      description: "Today's weather in a city (simulated: the same city always gets the same report).",
      inputSchema: { city: z.string() },
    },
    (args, extra) =>
      recorded(calls, 'get_weather', args, extra, () => {
        const city = args.city.trim();
        return city === '' ? text('city must not be empty', true) : text(weatherOf(city));
      }),
  );
  server.registerTool(
    'slow',
    {
      description: 'Takes `steps` steps `delay_ms` apart, reporting progress; stops when cancelled.',
      inputSchema: {
        steps: z.number().int().min(1).max(50).default(3),
        delay_ms: z.number().int().min(0).max(5000).default(50),
      },
    },
    (args, extra) =>
      recorded(calls, 'slow', args, extra, (call) => takeSteps(call, args.steps, args.delay_ms, extra)),
  );
  server.registerTool(
    'secret',
    { description: 'Tells the secret (for tests that a key not allowed this tool never reaches it).' },
    (extra) => recorded(calls, 'secret', {}, extra, () => text('the secret is 42')),
  );
}
