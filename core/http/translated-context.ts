/**
 * The request as a family sees it when its client spoke another API: the same request, whose body is
 * the translator's, with the headers the model's API requires of its clients (ApiTranslator.headers)
 * set on it. Everything else reads and writes the request itself, so state a family sets, or the relay
 * policy it reads, is the request's own.
 */
import type { JsonObject } from '../base/json';
import type { GatewayContext } from '../contracts/context';

/** A view of `target` whose own members are `own`'s; every other member is the target's, bound to it. */
function overlay<T extends object>(target: T, own: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(t, name) {
      if (typeof name === 'string' && name in own) return own[name as keyof T];
      const value: unknown = Reflect.get(t, name, t);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
    set: (t, name, value) => Reflect.set(t, name, value, t),
  });
}

export function translatedContext(
  ctx: GatewayContext,
  body: JsonObject,
  headers: Readonly<Record<string, string>> = {},
): GatewayContext {
  const bytes = Buffer.from(JSON.stringify(body));
  const own: Partial<Record<keyof GatewayContext, unknown>> = {
    headers: Object.keys(headers).length === 0 ? ctx.headers : { ...ctx.headers, ...headers },
    streamRelayed: true, // the client must get the translation: never piped through
    translated: true,
    // The translator's own object, made for this view: a family copies what it changes, as it does the
    // client's body (FamilyRequest.json).
    json: () => Promise.resolve(body),
    rawBody: () => Promise.resolve(bytes),
  };
  return overlay(ctx, own);
}
