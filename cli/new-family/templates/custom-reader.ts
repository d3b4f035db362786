/** `plugins/upstreams/<name>/reader.ts` of a custom-protocol family: the vendor's answers, translated. */
import type { FamilyNames } from '../names';
import type { NewFile } from './files';

export function customReader(n: FamilyNames): NewFile {
  const text = `/**
 * Reads the vendor's answers and gives the client OpenAI chat completions, metering what the vendor
 * reports. The protocol is a placeholder written by \`npm run new-family\`; replace the members, event
 * names and stop reasons with the vendor's:
 * - JSON \`{id, output_text, stop_reason, usage: {input_tokens, output_tokens}}\` becomes a \`chat.completion\`;
 * - a stream's \`event: delta\` (\`{text}\`) becomes a chunk; \`event: done\` (\`{stop_reason, usage}\`) the
 *   finish chunk, a usage chunk when the client asked for one, and \`[DONE]\`; \`event: error\` (\`{code,
 *   message}\`) the contract's error chunk. Anything else (a keep-alive) is dropped. The kit writes those
 *   client events (\`chatChunk\`, \`chatUsageChunk\`, \`CHAT_DONE\`, \`chatErrorEvent\`): the reader only says
 *   which, and what they hold.
 * Error answers (status 400 and up) are left to the gateway's default: the vendor's flat \`{code, message}\`
 * becomes the contract's \`{"error": {code, message, type}}\`. Give the reader an \`errorBody\` to map them
 * otherwise.
 */
import type { ClientEvents, SseEvent, Usage } from '../../../core/kit/plugin';
import {
  CHAT_DONE,
  chatChunk,
  chatErrorEvent,
  chatUsage,
  chatUsageChunk,
  estimateTokens,
  tokenCount,
  type ChatAnswerHead,
  type TranslatingReader,
} from '../../../core/kit/upstream';
import { isJsonObject, type JsonObject } from '../../../core/kit/json';

/** The vendor's stop reasons and OpenAI's finish reason for each; one the table lacks ends as \`stop\`. */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  end: 'stop',
  max_output_tokens: 'length',
  content_filter: 'content_filter',
};

const finishReason = (stop: unknown): string =>
  typeof stop === 'string' && Object.hasOwn(FINISH_REASONS, stop) ? FINISH_REASONS[stop]! : 'stop';

/** What the reader needs of the request it reads for. */
export interface ${n.pascal}ReaderRequest {
  /** The id of the client's answer and of each of its chunks. */
  readonly id: string;
  /** The model as the client named it, which its answer names. */
  readonly model: string;
  /** The client asked for usage in its stream (\`stream_options.include_usage\`). */
  readonly includeUsage: boolean;
  /** An estimate of the prompt, for an answer whose usage never came. */
  readonly promptTokens: () => number;
}

/** The vendor's usage as the gateway meters it; undefined when the answer carries none. */
function vendorUsage(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage)) return undefined;
  return {
    promptTokens: tokenCount(usage.input_tokens),
    completionTokens: tokenCount(usage.output_tokens),
    estimated: false,
  };
}

/** An event's data as an object; anything else reads as an empty one. */
function dataOf(data: string): JsonObject {
  try {
    const parsed: unknown = JSON.parse(data);
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

export class ${n.pascal}Reader implements TranslatingReader {
  readonly translates = true;
  complete = false;
  failed = false;
  private reported: Usage | undefined;
  /** Characters of text the client got, for the estimate when the vendor's usage never comes. */
  private delivered = 0;
  private roleSent = false;
  /** What every chunk of the answer repeats. */
  private readonly head: ChatAnswerHead;

  constructor(private readonly request: ${n.pascal}ReaderRequest) {
    this.head = { id: request.id, created: Math.floor(Date.now() / 1000), model: request.model };
  }

  json(body: JsonObject): { usage: Usage; replace: JsonObject } {
    const content = textOf(body.output_text);
    const usage = vendorUsage(body.usage) ?? this.estimate(content.length);
    const message = { role: 'assistant', content };
    return {
      usage,
      replace: {
        id: this.head.id,
        object: 'chat.completion',
        created: this.head.created,
        model: this.head.model,
        choices: [{ index: 0, message, finish_reason: finishReason(body.stop_reason) }],
        usage: chatUsage(usage),
      },
    };
  }

  event(ev: SseEvent): ClientEvents {
    switch (ev.event) {
      case 'delta':
        return this.delta(dataOf(ev.data));
      case 'done':
        return this.done(dataOf(ev.data));
      case 'error':
        return this.error(dataOf(ev.data));
      default:
        return null;
    }
  }

  usage(): Usage {
    return this.reported ?? this.estimate(this.delivered);
  }

  private delta(data: JsonObject): SseEvent {
    const content = textOf(data.text);
    this.delivered += content.length;
    // OpenAI's first chunk names the role; the rest carry only text.
    const delta = this.roleSent ? { content } : { role: 'assistant', content };
    this.roleSent = true;
    return chatChunk(this.head, delta);
  }

  private done(data: JsonObject): SseEvent[] {
    this.complete = true;
    this.reported = vendorUsage(data.usage);
    const events = [chatChunk(this.head, {}, finishReason(data.stop_reason))];
    if (this.request.includeUsage) events.push(chatUsageChunk(this.head, this.usage()));
    events.push(CHAT_DONE);
    return events;
  }

  /** The vendor's error event as the contract's error chunk, which OpenAI's SDKs raise. */
  private error(data: JsonObject): SseEvent {
    this.failed = true;
    const message = textOf(data.message) || 'the vendor reported an error';
    return chatErrorEvent(textOf(data.code) || 'upstream_error', message);
  }

  private estimate(chars: number): Usage {
    return {
      promptTokens: this.request.promptTokens(),
      completionTokens: estimateTokens(chars),
      estimated: true,
    };
  }
}
`;
  return { path: `plugins/upstreams/${n.name}/reader.ts`, text };
}
