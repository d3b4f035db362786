/**
 * The response and events phases of a pipeline's stages, run on each answer the client gets, in the
 * reverse of the pipeline's order: the stage nearest the upstream first. An answer passes only the stages
 * the request reached; a stage's own answer, only the stages before it.
 */
import type { Middleware, EventFilter, StreamControl } from '../contracts/stage';
import type { ServedRequest } from '../request/served-request';
import { writeAnswer, type ClientAnswer } from './client-answer';

type ResponseHook = NonNullable<Middleware['response']>;
type EventsHook = NonNullable<Middleware['events']>;

interface Phase<H> {
  /** The stage's place in the pipeline. */
  readonly index: number;
  readonly hook: H;
}

function phasesOf<H>(stages: readonly Middleware[], pick: (m: Middleware) => H | undefined): Phase<H>[] {
  const phases: Phase<H>[] = [];
  stages.forEach((stage, index) => {
    const hook = pick(stage);
    if (hook) phases.push({ index, hook });
  });
  return phases.reverse();
}

/** The stages an answer to `ctx` passes: those it reached, or those before the stage that answered. */
const reachedBy = (ctx: ServedRequest): number => ctx.stageReply?.stage ?? ctx.stagesReached;

/** Whether any of `phases` (nearest the upstream first, so the last is the earliest stage) is passed. */
const anyPassed = (phases: readonly Phase<unknown>[], ctx: ServedRequest): boolean =>
  phases.length > 0 && phases[phases.length - 1]!.index < reachedBy(ctx);

export class AnswerPhases {
  private readonly responses: readonly Phase<ResponseHook>[];
  private readonly events: readonly Phase<EventsHook>[];

  constructor(stages: readonly Middleware[]) {
    this.responses = phasesOf(stages, (m) => m.response?.bind(m));
    this.events = phasesOf(stages, (m) => m.events?.bind(m));
  }

  /** Whether a stage will see `ctx`'s JSON answer (without one, the answer is written as it came). */
  readsJson(ctx: ServedRequest): boolean {
    return anyPassed(this.responses, ctx);
  }

  /** Whether a stage may read `ctx`'s stream events (without one, a stream may be piped through). */
  readsEvents(ctx: ServedRequest): boolean {
    return anyPassed(this.events, ctx);
  }

  /**
   * Runs the response phase on `answer` from the `from`th hook on; a refusal ends it (the client gets the
   * error). Synchronous while the hooks are: a promise only from the first hook that returns one.
   */
  json(ctx: ServedRequest, answer: ClientAnswer, from = 0): void | Promise<void> {
    const limit = reachedBy(ctx);
    const hooks = this.responses;
    for (let i = from; i < hooks.length; i++) {
      const { index, hook } = hooks[i]!;
      if (index >= limit) continue;
      const ran = hook(ctx, answer);
      if (ran instanceof Promise)
        return ran.then(() => (answer.refused ? undefined : this.json(ctx, answer, i + 1)));
      if (answer.refused) return;
    }
  }

  /** A JSON answer (an upstream's or a stage's) to the client, through the response phase when a stage reads it. */
  deliver(ctx: ServedRequest, answer: ClientAnswer): void | Promise<void> {
    const ran = this.readsJson(ctx) ? this.json(ctx, answer) : undefined;
    if (ran instanceof Promise) return ran.then(() => writeAnswer(ctx, answer));
    writeAnswer(ctx, answer);
  }

  /** The events phase as a stream starts: the filters of the stages that read it, nearest the upstream first. */
  filters(ctx: ServedRequest, control: StreamControl): EventFilter[] {
    const limit = reachedBy(ctx);
    const filters: EventFilter[] = [];
    for (const { index, hook } of this.events) {
      if (index >= limit) continue;
      const filter = hook(ctx, control);
      if (filter) filters.push(filter);
    }
    return filters;
  }
}
