/**
 * A stream's plainest chat chunks, read from their text without parsing them, as the gateway's chat
 * relay reads only the chunks it must: the one that opens the answer (its id, time and role, no text);
 * one whose one choice's delta is `{"content": "…"}` and nothing else, with no finish yet (most chunks of
 * a stream); one that only finishes its one choice (`"delta":{}` and a finish reason); and one with no
 * choices (the usage chunk the gateway asked for, whose usage the relay reads). Any other chunk (tool
 * calls, reasoning, a refusal, several choices, an error, members in another order or spacing) is none
 * of these: the caller parses it whole, so a vendor's unusual chunk costs a parse, never a misreading.
 */
import { RepeatedMember } from '../../../core/kit/json';

/**
 * A text chunk's choice, matched from just after `"choices":[` (sticky): the string literal, then nothing
 * but the end of the choice and of the list, looked ahead to, so the match ends where the literal does.
 * A JSON string admits no raw control character: one in the text is left to the whole parse to refuse.
 * Tested, not executed: building a match's array and captures cost more than the match itself.
 */
const TEXT_CHOICE =
  // eslint-disable-next-line no-control-regex
  /\{"index":0,"delta":\{"content":"(?:[^"\\\x00-\x1f]|\\.)*"(?=\}(?:,"logprobs":null)?,"finish_reason":null\}\])/y;
/** Where a text choice's string literal begins, from the start of its match. */
const TEXT_LITERAL_AT = '{"index":0,"delta":{"content":'.length;

/** A finishing chunk's choice: an empty delta and the reason, from just after `"choices":[` (sticky). */
const FINISH_CHOICE = /\{"index":0,"delta":\{\}(?:,"logprobs":null)?,"finish_reason":"(\w+)"\}\]/y;

/** The chunk that opens an answer: its id and time, its one choice naming the role with no text. */
const OPENING = /^\{"id":"([\w-]*)","object":"chat\.completion\.chunk","created":(\d+),/;
const OPENING_CHOICE =
  /\{"index":0,"delta":\{"role":"assistant","content":""\}(?:,"logprobs":null)?,"finish_reason":null\}\]/y;

/** What an opening chunk says of the answer: the Response's id comes from it, and its time. */
export interface Opening {
  readonly id: string;
  readonly created: number;
}

/** A piece of text, and the same as a JSON string literal written as `JSON.stringify` writes it. */
export interface TextDelta {
  readonly text: string;
  readonly json: string;
}

/** Reads one stream's chunks, each one's choices found where the last one's were (RepeatedMember). */
export class PlainChunks {
  private readonly choices = new RepeatedMember('"choices":[');

  /** The text of a chunk that carries a piece of text alone. */
  text(data: string): TextDelta | undefined {
    const at = this.choices.after(data);
    if (at < 0) return undefined;
    TEXT_CHOICE.lastIndex = at;
    if (!TEXT_CHOICE.test(data)) return undefined;
    const literal = data.slice(at + TEXT_LITERAL_AT, TEXT_CHOICE.lastIndex);
    // Without an escape the literal is already what JSON.stringify writes (the pattern admits no control
    // character, and decoded UTF-8 holds no lone surrogate); with one, it is read and written anew.
    if (!literal.includes('\\')) return { text: literal.slice(1, -1), json: literal };
    const text = JSON.parse(literal) as string;
    return { text, json: JSON.stringify(text) };
  }

  /** The id and time of the chunk that opens the answer, when it says nothing else. */
  opening(data: string): Opening | undefined {
    const head = OPENING.exec(data);
    if (head === null || this.match(data, OPENING_CHOICE) === undefined) return undefined;
    return { id: head[1]!, created: Number(head[2]) };
  }

  /** The finish reason of a chunk that only finishes its one choice. */
  finish(data: string): string | undefined {
    return this.match(data, FINISH_CHOICE);
  }

  /** Whether the chunk has no choices and no error: a usage chunk, which adds nothing to the Response. */
  empty(data: string): boolean {
    const at = this.choices.after(data);
    return at >= 0 && data[at] === ']' && !data.includes('"error"');
  }

  /** `choice`'s capture (the whole match, for a pattern without one), matched right after `"choices":[`. */
  private match(data: string, choice: RegExp): string | undefined {
    const at = this.choices.after(data);
    if (at < 0) return undefined;
    choice.lastIndex = at;
    const found = choice.exec(data);
    return found === null ? undefined : (found[1] ?? found[0]);
  }
}
