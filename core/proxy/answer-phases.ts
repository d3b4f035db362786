/**
 * The response and events phases of a pipeline's stages, run on each answer the client gets, in the
 * reverse of the pipeline's order: the stage nearest the upstream first. An answer passes only the stages
 * the request reached; a stage's own answer, only the stages before it.
 */
import type { Middleware, EventFilter, StreamControl } from '../contracts/stage';
import type { ServedRequest } from '../request/served-request';
import type { ClientAnswer } from './client-answer';

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

export class AnswerPhases {
  private readonly responses: readonly Phase<ResponseHook>[];
  private readonly events: readonly Phase<EventsHook>[];

  constructor(stages: readonly Middleware[]) {
    this.responses = phasesOf(stages, (m) => m.response?.bind(m));
    this.events = phasesOf(stages, (m) => m.events?.bind(m));
  }

  /** Whether a stage will see `ctx`'s JSON answer (without one, the answer is written as it came). */
  readsJson(ctx: ServedRequest): boolean {
    return this.responses.length > 0 && this.responses[this.responses.length - 1]!.index < reachedBy(ctx);
  }

  /** Whether a stage may read `ctx`'s stream events (without one, a stream may be piped through). */
  readsEvents(ctx: ServedRequest): boolean {
    return this.events.length > 0 && this.events[this.events.length - 1]!.index < reachedBy(ctx);
  }

  /** Runs the response phase on `answer`; a refusal ends it (the client gets the error). */
  async json(ctx: ServedRequest, answer: ClientAnswer): Promise<void> {
    const limit = reachedBy(ctx);
    for (const { index, hook } of this.responses) {
      if (index >= limit) continue;
      await hook(ctx, answer);
      if (answer.refused) return;
    }
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

/** A pipeline whose stages have neither phase. */
export const NO_PHASES = new AnswerPhases([]);
