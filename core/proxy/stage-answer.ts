/**
 * A stage's own answer (GatewayContext.answer) written to the client: a JSON answer through the response
 * phase of the stages before it, or a stream's events through their events phase, in one write.
 */
import { serializeEvent, type SseEvent } from '../base/sse';
import type { StageAnswer } from '../contracts/context';
import type { ClientEvents } from '../contracts/reader';
import type { EventFilter, StreamControl } from '../contracts/stage';
import { eventsOf } from '../contracts/client-events';
import { NO_USAGE, type Usage } from '../contracts/usage';
import type { ServedRequest } from '../request/served-request';
import type { AnswerPhases } from './answer-phases';
import { ClientAnswer } from './client-answer';
import { FilterChain } from './event-filters';

type JsonStageAnswer = Extract<StageAnswer, { json: unknown }>;
type StreamStageAnswer = Extract<StageAnswer, { events: unknown }>;

export function writeStageAnswer(
  ctx: ServedRequest,
  answer: StageAnswer,
  phases: AnswerPhases,
): Promise<void> {
  ctx.usage = answer.usage;
  if ('json' in answer) return writeJson(ctx, answer, phases);
  writeEvents(ctx, answer, phases);
  return Promise.resolve();
}

function writeJson(ctx: ServedRequest, answer: JsonStageAnswer, phases: AnswerPhases): Promise<void> {
  const headers = {
    ...answer.headers,
    ...ctx.replyHeaders,
    'content-type': 'application/json',
    'x-request-id': ctx.requestId,
  };
  const { json } = answer;
  const reply = Buffer.isBuffer(json)
    ? new ClientAnswer(answer.status ?? 200, headers, json)
    : new ClientAnswer(answer.status ?? 200, headers, Buffer.from(JSON.stringify(json)), json);
  return Promise.resolve(phases.deliver(ctx, reply));
}

/**
 * Collects what the stages' filters let through, written at once; a stage that ends the stream stops the
 * rest. Nothing waits on an upstream, so there is no silence to time or fill.
 */
class StageStream implements StreamControl {
  readonly out: SseEvent[] = [];
  ended = false;

  constructor(private readonly used: Usage | undefined) {}

  end(final: ClientEvents): void {
    if (this.ended) return;
    this.ended = true;
    this.out.push(...eventsOf(final));
  }

  usage = (): Usage => this.used ?? NO_USAGE;
  quietMs = (): number => 0;
  silentMs = (): number => 0;
  ping = (): void => undefined;
  timeOut = (): void => undefined;

  pass(filters: readonly EventFilter[], events: readonly SseEvent[]): void {
    const chain = new FilterChain(filters);
    for (const ev of events) {
      if (this.ended) break;
      const through = chain.through(0, ev);
      if (!this.ended) this.out.push(...eventsOf(through));
    }
    if (!this.ended) this.out.push(...chain.flush());
    chain.close();
  }
}

function writeEvents(ctx: ServedRequest, answer: StreamStageAnswer, phases: AnswerPhases): void {
  const stream = new StageStream(answer.usage);
  const filters = phases.readsEvents(ctx) ? phases.filters(ctx, stream) : [];
  stream.pass(filters, answer.events);
  if (stream.ended) ctx.outcome = 'refused';
  ctx.status = 200;
  ctx.res.writeHead(200, {
    ...answer.headers,
    ...ctx.replyHeaders,
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-request-id': ctx.requestId,
  });
  ctx.res.end(stream.out.map(serializeEvent).join(''));
}
