/**
 * The request as a family sees it when its client spoke another API: the same request, whose body is
 * the translator's. Everything else reads and writes the request itself, so state a family sets, or the
 * relay policy it reads, is the request's own.
 */
import type { JsonObject } from '../base/json';
import type { GatewayContext } from '../contracts/plugin';

export function translatedContext(ctx: GatewayContext, body: JsonObject): GatewayContext {
  const bytes = Buffer.from(JSON.stringify(body));
  const own: Partial<Record<keyof GatewayContext, unknown>> = {
    // A fresh copy each time: families change the object they are given (renames, stream_options).
    json: () => Promise.resolve(structuredClone(body)),
    rawBody: () => Promise.resolve(bytes),
  };
  return new Proxy(ctx, {
    get(target, name) {
      if (typeof name === 'string' && name in own) return own[name as keyof GatewayContext];
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    set: (target, name, value) => Reflect.set(target, name, value, target),
  });
}
