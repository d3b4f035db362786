/**
 * The request pipeline, built once from the ordered `pipeline:` list of gateway.yaml. Each entry names a
 * registered middleware plugin and may carry its options; the plugin's schema validates them and errors
 * name the entry's path (`pipeline[1].rate-limit.requests_per_minute`).
 */
import type { DependencyContainer } from 'tsyringe';
import { ConfigError } from '../../config/errors';
import { Errors } from '../base/errors';
import { parseSection } from '../../config/validate';
import type { Handler, ServedRequest } from '../request/served-request';
import type { Middleware } from '../contracts/stage';
import { registeredPlugins } from './plugin-container';
import { checkStageOrder } from './pipeline-order';
import { pluginRegistration, resolvePlugin } from './plugin-instances';
import { AnswerPhases } from '../proxy/answer-phases';
import { writeStageAnswer } from '../proxy/stage-answer';

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
  /** The stages' response and events phases, which every answer passes. */
  readonly phases: AnswerPhases;
  private readonly handlers: readonly Middleware[];

  constructor(readonly middlewares: readonly NamedMiddleware[]) {
    this.handlers = middlewares.map((m) => m.instance);
    this.phases = new AnswerPhases(this.handlers);
  }

  has(name: string): boolean {
    return this.middlewares.some((m) => m.name === name);
  }

  /**
   * Runs the stages in order, then `terminal`. Whatever happens, `finish` runs afterwards for every stage
   * the request reached (see `runFinish`), so metering sees failures too. Errors propagate to the server's
   * error boundary, which writes the error response first.
   */
  async run(ctx: ServedRequest, terminal: Handler): Promise<void> {
    const dispatch = (i: number): Promise<void> => {
      const stage = this.handlers[i];
      if (!stage) return terminal(ctx);
      ctx.stagesReached = i + 1;
      // Stages without a request phase are passed without a closure or a promise of their own.
      return stage.handle ? stage.handle(ctx, () => this.passOn(ctx, i, dispatch)) : dispatch(i + 1);
    };
    await dispatch(0); // `async` turns a stage that throws before returning its promise into a rejection
    const reply = ctx.stageReply;
    if (!reply) return;
    ctx.answeredBy = this.middlewares[reply.stage]?.name;
    await writeStageAnswer(ctx, reply.answer, this.phases);
  }

  /** A stage's `next`: the request goes on, unless that stage already answered it. */
  private passOn(ctx: ServedRequest, i: number, dispatch: (i: number) => Promise<void>): Promise<void> {
    if (ctx.stageReply) {
      const name = this.middlewares[ctx.stageReply.stage]?.name ?? 'a stage';
      return Promise.reject(Errors.internal(new Error(`${name} answered the request and passed it on`)));
    }
    return dispatch(i + 1);
  }

  /** The finish phase: after the response is written, for every stage the request reached. */
  runFinish(ctx: ServedRequest, onError: (name: string, e: unknown) => void): void {
    for (let i = ctx.stagesReached - 1; i >= 0; i--) {
      try {
        this.handlers[i]!.finish?.(ctx);
      } catch (e) {
        onError(this.middlewares[i]!.name, e); // the response is complete; a failing hook is only logged
      }
    }
  }
}
