/**
 * The request pipeline, built once from the ordered `pipeline:` list of gateway.yaml. Each entry names a
 * registered middleware plugin and may carry its options; the plugin's schema validates them and errors
 * name the entry's path (`pipeline[1].rate-limit.requests_per_minute`).
 */
import type { DependencyContainer } from 'tsyringe';
import { ConfigError } from '../../config/errors';
import { parseSection } from '../../config/validate';
import type { GatewayContext, Handler, Middleware } from '../contracts/plugin';
import { registeredPlugins } from './plugin-container';
import { checkStageOrder } from './pipeline-order';
import { pluginRegistration, resolvePlugin } from './plugin-instances';
import type { EventHook } from '../proxy/stream-relay';

export interface NamedMiddleware {
  readonly name: string;
  readonly instance: Middleware;
}

/** Splits a pipeline entry into its name and raw options. */
export function entryParts(entry: string | Record<string, unknown>, path: string): [string, unknown] {
  if (typeof entry === 'string') return [entry, {}];
  const keys = Object.keys(entry);
  if (keys.length !== 1)
    throw new ConfigError(path, 'an entry is a middleware name, or one name mapped to its options');
  return [keys[0]!, entry[keys[0]!] ?? {}];
}

export function buildMiddlewares(
  entries: readonly (string | Record<string, unknown>)[],
  parent: DependencyContainer,
): NamedMiddleware[] {
  const known = registeredPlugins('middleware', parent);
  const seen = new Set<string>();
  const stages = entries.map((entry, i) => {
    const [name, raw] = entryParts(entry, `pipeline[${i}]`);
    const registration = pluginRegistration(known, name, `pipeline[${i}]`, 'middleware');
    if (seen.has(name)) throw new ConfigError(`pipeline[${i}]`, `middleware "${name}" is listed twice`);
    seen.add(name);
    return { name, registration, options: parseSection(registration.options, raw, `pipeline[${i}].${name}`) };
  });
  checkStageOrder(stages.map(({ name, registration }) => ({ name, order: registration.order })));
  return stages.map(({ name, registration, options }) => ({
    name,
    instance: resolvePlugin(registration, options, parent),
  }));
}

/** A composed pipeline: run the request through the stages, then the endpoint; then the finish phase. */
export class Pipeline {
  readonly eventHooks: readonly EventHook[];
  private readonly handlers: readonly Middleware[];

  constructor(readonly middlewares: readonly NamedMiddleware[]) {
    this.handlers = middlewares.map((m) => m.instance);
    this.eventHooks = this.handlers.flatMap((m) => (m.onEvent ? [m.onEvent.bind(m)] : []));
  }

  has(name: string): boolean {
    return this.middlewares.some((m) => m.name === name);
  }

  /**
   * Runs the stages in order, then `terminal`. Whatever happens, `finish` runs afterwards for every stage
   * the request reached (see `runFinish`), so metering sees failures too. Errors propagate to the server's
   * error boundary, which writes the error response first.
   */
  async run(ctx: GatewayContext, terminal: Handler): Promise<void> {
    const dispatch = (i: number): Promise<void> => {
      const stage = this.handlers[i];
      if (!stage) return terminal(ctx);
      ctx.stagesReached = i + 1;
      // Stages without a request phase are passed without a closure or a promise of their own.
      return stage.handle ? stage.handle(ctx, () => dispatch(i + 1)) : dispatch(i + 1);
    };
    return dispatch(0); // `async` turns a stage that throws before returning its promise into a rejection
  }

  /** The finish phase: after the response is written, for every stage the request reached. */
  runFinish(ctx: GatewayContext, onError: (name: string, e: unknown) => void): void {
    for (let i = ctx.stagesReached - 1; i >= 0; i--) {
      try {
        this.handlers[i]!.finish?.(ctx);
      } catch (e) {
        onError(this.middlewares[i]!.name, e); // the response is complete; a failing hook is only logged
      }
    }
  }
}
