/**
 * The reader a Responses client's request gets when a family of another API serves it: it wraps the
 * family's own reader, which meters usage and may drop, change or multiply the upstream's events, and
 * translates what that reader lets through into the Responses API. Usage is always the family reader's,
 * so the metering of a translated request is the metering of the request it became; the Response shows
 * the same figures. The stream is complete at `response.completed` or `response.incomplete` and failed
 * at `response.failed`. What is read of the upstream's answer is each translator's own.
 */
import {
  contractErrorBody,
  type ResponseReader,
  type TranslatingReader,
  type VendorError,
} from '../../../core/kit/upstream';
import {
  eventsOf,
  type ClientEvents,
  type GatewayError,
  type SseEvent,
  type Usage,
} from '../../../core/kit/plugin';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { StreamError } from '../../apis/responses';
import { frameOf } from './event-sink';
import { gatewayStreamError } from './failure';
import type { StreamOutcome } from './response-stream';

/** A translator's reading of its upstream's stream, one request's. */
export interface UpstreamStream {
  readonly outcome: StreamOutcome;
  /** The client's events for one upstream event; `usage` is the gateway's metering, read at the end. */
  translate(ev: SseEvent, usage: () => Usage): SseEvent[];
  /** The events that end the Response as failed by `error`. */
  fail(error: StreamError): SseEvent[];
}

/** A translator's Response for a whole upstream answer, metered as `usage`. */
export type UpstreamAnswer = (body: JsonObject, usage: Usage) => JsonObject;

/** An event's data as a JSON object, or undefined for anything else (nothing a Responses client could read). */
export function eventJson(ev: SseEvent): JsonObject | undefined {
  try {
    const data: unknown = JSON.parse(ev.data);
    return isJsonObject(data) ? data : undefined;
  } catch {
    return undefined;
  }
}

export class ResponsesReader implements TranslatingReader {
  readonly translates = true;
  /** The gateway's metering, which the stream's end reads. */
  private readonly meteredUsage = (): Usage => this.inner.usage();

  constructor(
    private readonly inner: ResponseReader,
    private readonly stream: UpstreamStream,
    private readonly answer: UpstreamAnswer,
  ) {}

  get complete(): boolean {
    return this.stream.outcome === 'completed';
  }

  get failed(): boolean {
    return this.stream.outcome === 'failed';
  }

  json(body: JsonObject): { usage: Usage; replace: JsonObject } {
    const { usage, replace } = this.inner.json(body);
    return { usage, replace: this.answer(replace ?? body, usage) };
  }

  event(ev: SseEvent): ClientEvents {
    const upstream = this.inner.event(ev);
    // Mostly one event in: its translation is the answer as it is, not copied into another list.
    if (!Array.isArray(upstream)) return this.translation(upstream as SseEvent | null);
    const out: SseEvent[] = [];
    for (const one of upstream as readonly SseEvent[]) out.push(...eventsOf(this.translation(one)));
    return out.length > 0 ? out : null;
  }

  /** The client's events for one upstream event: none once the Response has ended, as nothing may follow. */
  private translation(upstream: SseEvent | null): SseEvent[] | null {
    if (upstream === null || this.stream.outcome !== 'open') return null;
    const out = this.stream.translate(upstream, this.meteredUsage);
    return out.length > 0 ? out : null;
  }

  usage(): Usage {
    return this.inner.usage();
  }

  /** Responses errors are OpenAI's shape: the family's mapping, or the gateway's default. */
  errorBody(answer: VendorError): JsonObject | undefined {
    return this.inner.errorBody ? this.inner.errorBody(answer) : contractErrorBody(answer);
  }

  /**
   * The frames that end this stream when the gateway cuts it (an upstream cut or gone idle): the `error`
   * event numbered in this stream, and `response.failed`. Empty once the Response has ended.
   */
  errorFrame(error: GatewayError): string {
    if (this.stream.outcome !== 'open') return '';
    return this.stream.fail(gatewayStreamError(error)).map(frameOf).join('');
  }
}
