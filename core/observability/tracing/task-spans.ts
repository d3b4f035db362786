/**
 * A video task's spans after its submit. The submit's request span is the task's: the task keeps its
 * `traceparent`, so whichever instance polls or bills the task finds it. Each poll is a span of its own
 * (a task polled for minutes would otherwise make one trace of hundreds of spans) linked to the submit's;
 * the billing is a child of the submit's span, so one trace shows the task from submit to bill. A task
 * whose submit was not traced (tracing off, or not sampled) gets no spans.
 */
import { SpanKind, trace, type Context, type Tracer } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from '@opentelemetry/semantic-conventions/incubating';
import type { UsageRecord } from '../../stores/usage-store';
import type { VideoTask } from '../../stores/video-task';
import { markFailed } from './span-error';
import { remoteParent, traceparentOf } from './trace-context';

/** The operation the GenAI conventions name a video generation by. */
const GENERATE = 'generate_content';

/** The submit's span context, as a parent or a link; undefined for a task that was not traced. */
function submitContext(task: Pick<VideoTask, 'traceparent'>): Context | undefined {
  if (task.traceparent === undefined) return undefined;
  const parent = remoteParent({ traceparent: task.traceparent });
  return trace.getSpanContext(parent) ? parent : undefined;
}

const taskAttributes = (task: VideoTask) => ({
  [ATTR_GEN_AI_OPERATION_NAME]: GENERATE,
  [ATTR_GEN_AI_REQUEST_MODEL]: task.model,
  'gateway.task_id': task.id,
  'gateway.upstream': task.upstream,
});

/** An open poll span; `end` with what the poll learnt, or the error that made it fail. */
export interface PollSpan {
  /** Names the poll's span to the upstream. */
  readonly traceparent: string;
  end(state: string | undefined, error?: unknown): void;
}

export class TaskSpans {
  constructor(private readonly tracer: Tracer) {}

  /** A poll of `task` starting now: its own trace, linked to the submit's span. */
  poll(task: VideoTask): PollSpan | undefined {
    const submit = submitContext(task);
    const link = submit && trace.getSpanContext(submit);
    if (!link) return undefined;
    const span = this.tracer.startSpan(`poll ${task.upstream}`, {
      kind: SpanKind.CLIENT,
      root: true,
      links: [{ context: link }],
      attributes: { ...taskAttributes(task), 'gateway.task.poll': task.polls + 1 },
    });
    return {
      traceparent: traceparentOf(span.spanContext()),
      end: (state, error) => {
        if (state !== undefined) span.setAttribute('gateway.task.state', state);
        if (error !== undefined) markFailed(span, error);
        span.end();
      },
    };
  }

  /**
   * Starts the billing of `task`, under its submit's span; the returned function ends it with the
   * record billed (or the error), and says whether this call wrote it.
   */
  bill(
    task: VideoTask,
  ): ((record: UsageRecord | undefined, wrote: boolean, error?: unknown) => void) | undefined {
    const submit = submitContext(task);
    if (!submit) return undefined;
    const span = this.tracer.startSpan('bill video task', { attributes: taskAttributes(task) }, submit);
    return (record, wrote, error) => {
      if (record) span.setAttributes(billedAttributes(record, wrote));
      if (error !== undefined) markFailed(span, error);
      span.end();
    };
  }
}

function billedAttributes(record: UsageRecord, wrote: boolean) {
  return {
    'gateway.billed': wrote,
    ...(record.video_seconds !== undefined ? { 'gateway.video_seconds': record.video_seconds } : {}),
    ...(record.resolution !== undefined ? { 'gateway.video_resolution': record.resolution } : {}),
    ...(record.completion_tokens > 0 ? { [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: record.completion_tokens } : {}),
    ...(record.cost_micros !== null ? { 'gateway.cost_usd': record.cost_micros / 1e6 } : {}),
  };
}
