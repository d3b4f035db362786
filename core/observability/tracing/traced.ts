import type { GatewayContext } from '../../contracts/context';

/** Runs a stage's I/O as a span of the request's trace when the request is traced, else as it is. */
export const traced = <T>(ctx: GatewayContext, name: string, work: () => Promise<T>): Promise<T> =>
  ctx.trace ? ctx.trace.io(name, work) : work();

/**
 * Runs a plugin's own call to an upstream (an MCP server's tool) as a CLIENT span of the request's trace
 * when it is traced, else as it is.
 */
export const tracedCall = <T>(
  ctx: GatewayContext,
  name: string,
  attributes: Readonly<Record<string, string | number | boolean>>,
  work: () => Promise<T>,
): Promise<T> => (ctx.trace ? ctx.trace.client(name, attributes, work) : work());
