/** The part of on-exit-leak-free (pino's own exit hook, untyped) the gateway uses. */
declare module 'on-exit-leak-free' {
  /** Calls `fn(obj, event)` on the process's 'exit', in the order of registration, unless `obj` was collected. */
  export function register<T extends object>(obj: T, fn: (obj: T, event: 'exit') => void): void;
}
