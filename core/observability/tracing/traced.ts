import type { GatewayContext } from '../../contracts/context';

/** Runs a stage's I/O as a span of the request's trace when the request is traced, else as it is. */
export const traced = <T>(ctx: GatewayContext, name: string, work: () => Promise<T>): Promise<T> =>
  ctx.trace ? ctx.trace.io(name, work) : work();
