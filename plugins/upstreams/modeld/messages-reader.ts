/**
 * Reads usage from a messages response (docs/upstreams.md#modeld), JSON or stream. In a stream, input and cache
 * counts come from `message_start`, and output tokens from the last `message_delta` (cumulative): the
 * `output_tokens` of `message_start` is a placeholder and is never added. A stream cut before its
 * `message_delta` is estimated from the deltas that reached the client, and marked so.
 */
import {
  DeferredCount,
  estimateTokens,
  type RelayingReader,
  type StreamSkim,
  tokenCount,
} from '../../../core/kit/upstream';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';
import type { SseEvent, Usage } from '../../../core/kit/plugin';

/** Input-side counts: the vendor reports uncached input and cache reads and writes apart. */
interface InputCounts {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

function inputCounts(usage: JsonObject): InputCounts {
  return {
    input: tokenCount(usage.input_tokens),
    cacheRead: tokenCount(usage.cache_read_input_tokens),
    cacheWrite: tokenCount(usage.cache_creation_input_tokens),
  };
}

/**
 * How the vendor writes the events that tell the meter nothing now: text deltas (read only for an
 * estimate, see DeferredCount), block starts and stops, pings. Any other event is parsed.
 */
const DELTA_EVENT = '{"type":"content_block_delta"';
const SILENT_EVENTS: readonly string[] = [
  '{"type":"content_block_start"',
  '{"type":"content_block_stop"',
  '{"type":"ping"',
];

const isSilent = (data: string): boolean => {
  for (const prefix of SILENT_EVENTS) if (data.startsWith(prefix)) return true;
  return false;
};

/** Text in every event ON_EVENT acts on, its key ends (see StreamSkim): usage, `message_stop`, errors. */
const MEANINGFUL: readonly string[] = ['usage"', 'message_stop', 'rror"'];

/** The generated characters of a text delta read late; anything unreadable counts nothing. */
function deferredDeltaChars(data: string): number {
  try {
    const parsed: unknown = JSON.parse(data);
    return isJsonObject(parsed) ? deltaChars(parsed.delta) : 0;
  } catch {
    return 0;
  }
}

/** The generated text a stream delta carries, whatever its type. */
const DELTA_TEXT: readonly string[] = ['text', 'thinking', 'partial_json'];

function deltaChars(delta: unknown): number {
  if (!isJsonObject(delta)) return 0;
  let chars = 0;
  for (const key of DELTA_TEXT) {
    const text = delta[key];
    if (typeof text === 'string') chars += text.length;
  }
  return chars;
}

/** The vendor reports uncached input apart from cache reads and writes; the prompt is all three. */
function toUsage(input: InputCounts, output: number, estimated: boolean): Usage {
  return {
    promptTokens: input.input + input.cacheRead + input.cacheWrite,
    completionTokens: output,
    ...(input.cacheRead > 0 ? { cacheReadTokens: input.cacheRead } : {}),
    ...(input.cacheWrite > 0 ? { cacheWriteTokens: input.cacheWrite } : {}),
    estimated,
  };
}

type EventHandler = (reader: MessagesResponseReader, data: JsonObject) => void;

/** What each stream event tells the meter; other events (pings, block starts and stops) tell nothing. */
const ON_EVENT: ReadonlyMap<string, EventHandler> = new Map(
  Object.entries({
    message_start: (r, data) => {
      const usage = isJsonObject(data.message) ? data.message.usage : undefined;
      if (isJsonObject(usage)) r.input = inputCounts(usage);
    },
    content_block_delta: (r, data) => {
      r.delivered.add(deltaChars(data.delta));
    },
    message_delta: (r, data) => {
      if (!isJsonObject(data.usage)) return;
      if (typeof data.usage.output_tokens === 'number') r.output = tokenCount(data.usage.output_tokens);
      // Newer APIs repeat cumulative input counts here; the latest figures win.
      if (typeof data.usage.input_tokens === 'number') r.input = inputCounts(data.usage);
    },
    message_stop: (r) => {
      r.complete = true;
    },
    error: (r) => {
      r.failed = true;
    },
  } satisfies Record<string, EventHandler>),
);

export class MessagesResponseReader implements RelayingReader {
  complete = false;
  failed = false;
  input: InputCounts | undefined;
  output: number | undefined;
  /** Characters of generated text relayed so far. */
  readonly delivered = new DeferredCount(deferredDeltaChars);
  private skimmer: StreamSkim | undefined;

  constructor(private readonly promptTokens: () => number) {}

  /**
   * The events that tell the meter something (ON_EVENT) are those carrying usage (`message_start`,
   * `message_delta`), the end and errors; the rest, text deltas above all, are relayed unparsed. Made
   * when a stream asks: a JSON answer never does.
   */
  get skim(): StreamSkim {
    return (this.skimmer ??= {
      reads: (frame) => {
        for (const text of MEANINGFUL) if (frame.includes(text)) return true;
        return false;
      },
      passed: (frames) => this.delivered.laterFrames(frames),
    });
  }

  usageMember(usage: JsonObject): Usage {
    return toUsage(inputCounts(usage), tokenCount(usage.output_tokens), false);
  }

  json(body: JsonObject): { usage: Usage; replace?: JsonObject } {
    if (isJsonObject(body.usage)) return { usage: this.usageMember(body.usage) };
    // The contract promises `usage` on every response: supply an estimate when the upstream left it out.
    const blocks = Array.isArray(body.content) ? body.content : [];
    const output = estimateTokens(blocks.reduce((n: number, b) => n + deltaChars(b), 0));
    const usage = toUsage({ input: this.promptTokens(), cacheRead: 0, cacheWrite: 0 }, output, true);
    return {
      usage,
      replace: { ...body, usage: { input_tokens: usage.promptTokens, output_tokens: output } },
    };
  }

  event(ev: SseEvent): SseEvent {
    // The vendor writes `type` first: the commonest events are known by their first bytes.
    if (ev.data.startsWith(DELTA_EVENT)) {
      this.delivered.later(ev.data);
      return ev;
    }
    if (isSilent(ev.data)) return ev;
    let data: unknown;
    try {
      data = JSON.parse(ev.data);
    } catch {
      return ev; // not JSON: relayed as it came
    }
    if (isJsonObject(data) && typeof data.type === 'string') ON_EVENT.get(data.type)?.(this, data);
    return ev;
  }

  usage(): Usage {
    const input = this.input ?? { input: this.promptTokens(), cacheRead: 0, cacheWrite: 0 };
    const output = this.output ?? estimateTokens(this.delivered.total());
    return toUsage(input, output, this.input === undefined || this.output === undefined);
  }
}
