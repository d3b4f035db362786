/**
 * The text of a chat chunk whose one choice's delta is `{"content": "…"}` and nothing else, with no finish
 * yet: most chunks of a stream. Read from the chunk's text without parsing the chunk (one search, and one
 * pattern matched where it found), as the gateway's chat relay reads only the chunks it must. Any other
 * chunk (tool calls, reasoning, a refusal, a finish, several choices, an error, members in another order
 * or spacing) is undefined: the caller parses it whole, so a vendor's unusual chunk costs a parse, never
 * a misreading.
 */
import { holdsAt } from '../../../core/kit/json';

/** Where such a chunk's one choice begins, up to its text's opening quote: found by a plain search. */
const TEXT_CHOICE = '"choices":[{"index":0,"delta":{"content":"';
/**
 * The rest, matched from that quote only (sticky): the string literal, then nothing but the end of the
 * choice and of the list. A JSON string admits no raw control character: one in the text is left to the
 * whole parse to refuse.
 */
const TEXT_REST =
  // eslint-disable-next-line no-control-regex
  /("(?:[^"\\\x00-\x1f]|\\.)*")\}(?:,"logprobs":null)?,"finish_reason":null\}\]/y;

/** A piece of text, and the same as a JSON string literal written as `JSON.stringify` writes it. */
export interface TextDelta {
  readonly text: string;
  readonly json: string;
}

/**
 * Reads one stream's chunks. They repeat one envelope (id, created, model…), so each chunk's choice is
 * looked for first where the last one's was: a search from the start stops at every quote before it.
 */
export class ContentDeltas {
  private at = 0;

  read(data: string): TextDelta | undefined {
    let at = this.at;
    if (!holdsAt(data, at, TEXT_CHOICE)) {
      at = data.indexOf(TEXT_CHOICE);
      if (at < 0) return undefined;
      this.at = at;
    }
    TEXT_REST.lastIndex = at + TEXT_CHOICE.length - 1;
    const literal = TEXT_REST.exec(data)?.[1];
    if (literal === undefined) return undefined;
    // Without an escape the literal is already what JSON.stringify writes (the pattern admits no control
    // character, and decoded UTF-8 holds no lone surrogate); with one, it is read and written anew.
    if (!literal.includes('\\')) return { text: literal.slice(1, -1), json: literal };
    const text = JSON.parse(literal) as string;
    return { text, json: JSON.stringify(text) };
  }
}
