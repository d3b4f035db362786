/**
 * The chat completions API's stream: each choice's `delta.content` is one run, and each of its tool
 * calls' `function.arguments` another; a choice's `finish_reason` ends its runs, and `[DONE]` every run
 * left open. A blocked stream ends each unfinished choice with `content_filter`, the usage chunk when the
 * client asked for one, and `[DONE]`.
 */
import { isJsonObject, type JsonObject, RepeatedMember } from '../../../../../core/kit/json';
import type { SseEvent } from '../../../../../core/kit/plugin';
import { CHAT_DONE, chatUsageChunk, type ChatAnswerHead } from '../../../../../core/kit/upstream';
import type { BarePiece, BlockedEnd, Ending, EventView, Piece, StreamShape } from './shape';
import { madeEvent } from './made-event';
import { STRING_INSIDE, stringText } from '../../texts/string-text';

const contentRun = (choice: number): string => `${choice}`;
const callRun = (choice: number, call: number): string => `${choice}:${call}`;

/** A member that says nothing: absent or null. */
const isNothing = (value: unknown): boolean => value === undefined || value === null;

/** Whether `object` has nothing but `kept` members (and members that say nothing). A loop: read per chunk. */
function onlyHas(object: JsonObject, kept: readonly string[]): boolean {
  for (const name of Object.keys(object)) if (!kept.includes(name) && !isNothing(object[name])) return false;
  return true;
}

/** Whether a delta carries nothing but text: its content, its tool calls' indexes and arguments. */
function deltaIsBare(delta: JsonObject): boolean {
  if (!onlyHas(delta, ['content', 'tool_calls'])) return false;
  if (!Array.isArray(delta.tool_calls)) return true;
  return delta.tool_calls.every(
    (call) =>
      isJsonObject(call) &&
      onlyHas(call, ['index', 'function']) &&
      (!isJsonObject(call.function) || onlyHas(call.function, ['arguments'])),
  );
}

const USAGE = '"usage":';

/**
 * A chunk's choices that are one choice adding content and nothing else, members that say nothing (null)
 * aside, written as vendors write them: compact, the index first. Read from just after `"choices":[`.
 */
const BARE_CHOICES = new RegExp(
  String.raw`\{"index":(\d+),"delta":\{(?:"\w+":null,)*"content":"${STRING_INSIDE}"(?:,"\w+":null)*\}(?:,"\w+":null)*\}\]`,
  'y',
);

/** Whether the chunk's text has no `usage`, or a null one (the last of a name is the one JSON keeps). */
function saysNoUsage(data: string): boolean {
  const at = data.lastIndexOf(USAGE);
  return at < 0 || data.startsWith('null', at + USAGE.length);
}

const choiceIndex = (choice: JsonObject): number => (typeof choice.index === 'number' ? choice.index : 0);

/** The choice's text changed: its logprobs name the tokens as the upstream wrote them, so they go. */
function dropLogprobs(choice: JsonObject): void {
  if (!isNothing(choice.logprobs)) choice.logprobs = null;
}

export class ChatShape implements StreamShape {
  /**
   * The first chunk with choices: its other members (id, object, created, model, system_fingerprint…)
   * are what every chunk repeats. Copied out only for an event the shape writes, which few streams need.
   */
  private first: JsonObject | undefined;
  /** Each choice seen, with the runs read in it. */
  private readonly choices = new Map<number, Set<string>>();
  /** The choices whose finish chunk went out. */
  private readonly finished = new Set<number>();
  /** Each chunk's `"choices":[`, looked for where the last chunk's was. */
  private readonly choicesKey = new RepeatedMember('"choices":[');

  read(payload: JsonObject): EventView {
    if (this.first === undefined && Array.isArray(payload.choices)) this.first = payload;
    const pieces: Piece[] = [];
    const ends: Ending[] = [];
    const choices = Array.isArray(payload.choices) ? payload.choices.filter(isJsonObject) : [];
    for (const choice of choices) {
      const index = choiceIndex(choice);
      const runs = this.runsOf(index);
      for (const piece of choicePieces(choice, index)) {
        runs.add(piece.run);
        pieces.push(piece);
      }
      if (typeof choice.finish_reason === 'string') for (const run of runs) ends.push({ run });
    }
    const bare =
      isNothing(payload.usage) &&
      choices.every((c) => isNothing(c.finish_reason) && isJsonObject(c.delta) && deltaIsBare(c.delta));
    return { pieces, ends, bare };
  }

  /**
   * Keys in the chunk's text are the vendor's: the model's text is inside strings, where a quote is
   * escaped, so `"choices":[` is the chunk's own member. The first chunk is read whole: it is the envelope.
   */
  bare(data: string): BarePiece | undefined {
    if (this.first === undefined) return undefined;
    const at = this.choicesKey.after(data);
    if (at < 0) return undefined;
    BARE_CHOICES.lastIndex = at;
    const match = BARE_CHOICES.exec(data);
    if (match === null || !saysNoUsage(data)) return undefined;
    const text = stringText(match[2]!);
    if (text === undefined) return undefined;
    const index = Number(match[1]);
    const run = contentRun(index);
    this.runsOf(index).add(run);
    return { run, text };
  }

  closes(ev: SseEvent): boolean {
    return ev.data === CHAT_DONE.data;
  }

  passing(payload: JsonObject): boolean {
    const choices = Array.isArray(payload.choices) ? payload.choices.filter(isJsonObject) : [];
    for (const choice of choices)
      if (typeof choice.finish_reason === 'string') this.finished.add(choiceIndex(choice));
    return false;
  }

  textEvent(run: string, text: string): SseEvent {
    const [choice, call] = run.split(':').map(Number) as [number, number | undefined];
    const delta =
      call === undefined
        ? { content: text }
        : { tool_calls: [{ index: call, function: { arguments: text } }] };
    return this.chunk(choice, delta, null);
  }

  blockedEnd({ usage, includeUsage }: BlockedEnd): SseEvent[] {
    const open = [...this.choices.keys()].filter((i) => !this.finished.has(i)).sort((a, b) => a - b);
    const events = open.map((i) => this.chunk(i, {}, 'content_filter'));
    if (includeUsage) events.push(chatUsageChunk(this.head(), usage));
    events.push(CHAT_DONE);
    return events;
  }

  private runsOf(choice: number): Set<string> {
    let runs = this.choices.get(choice);
    if (!runs) this.choices.set(choice, (runs = new Set()));
    return runs;
  }

  /** A chunk of one choice, with the stream's own envelope. */
  private chunk(index: number, delta: JsonObject, finishReason: string | null): SseEvent {
    return madeEvent({ ...this.envelope(), choices: [{ index, delta, finish_reason: finishReason }] }, false);
  }

  /** What a chunk says of the whole answer: every member of the first but its choices and usage. */
  private envelope(): JsonObject {
    const first = this.first ?? {};
    return Object.fromEntries(
      Object.entries(first).filter(([name]) => name !== 'choices' && name !== 'usage'),
    );
  }

  private head(): ChatAnswerHead {
    const { id, created, model } = this.envelope();
    return {
      id: typeof id === 'string' ? id : '',
      created: typeof created === 'number' ? created : 0,
      model: typeof model === 'string' ? model : '',
    };
  }
}

/** A choice's content and its tool calls' arguments, in that order. */
function choicePieces(choice: JsonObject, index: number): Piece[] {
  const { delta } = choice;
  if (!isJsonObject(delta)) return [];
  const pieces: Piece[] = [];
  if (typeof delta.content === 'string') {
    const put = (text: string): void => {
      delta.content = text;
      dropLogprobs(choice);
    };
    pieces.push({ run: contentRun(index), text: delta.content, put });
  }
  const calls = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
  for (const [at, call] of calls.entries()) {
    if (!isJsonObject(call) || !isJsonObject(call.function)) continue;
    const fn = call.function;
    if (typeof fn.arguments !== 'string') continue;
    const put = (text: string): void => {
      fn.arguments = text;
      dropLogprobs(choice);
    };
    const callIndex = typeof call.index === 'number' ? call.index : at;
    pieces.push({ run: callRun(index, callIndex), text: fn.arguments, put });
  }
  return pieces;
}
