/**
 * The text of a chat chunk whose one choice's delta is `{"content": "…"}` and nothing else, with no finish
 * yet: most chunks of a stream. Read from the chunk's text without parsing the chunk, in one pass of one
 * pattern, as the gateway's chat relay reads only the chunks it must. Any other chunk (tool calls,
 * reasoning, a refusal, a finish, several choices, an error, members in another order or spacing) is
 * undefined: the caller parses it whole, so a vendor's unusual chunk costs a parse, never a misreading.
 */
// A JSON string admits no raw control character: one in the text is left to the whole parse to refuse.
const CONTENT_ONLY =
  // eslint-disable-next-line no-control-regex
  /"choices":\[\{"index":0,"delta":\{"content":("(?:[^"\\\x00-\x1f]|\\.)*")\}(?:,"logprobs":null)?,"finish_reason":null\}\]/;

/** A piece of text, and the same as a JSON string literal written as `JSON.stringify` writes it. */
export interface TextDelta {
  readonly text: string;
  readonly json: string;
}

export function contentOnlyDelta(data: string): TextDelta | undefined {
  const literal = CONTENT_ONLY.exec(data)?.[1];
  if (literal === undefined) return undefined;
  // Without an escape the literal is already what JSON.stringify writes (the pattern admits no control
  // character, and decoded UTF-8 holds no lone surrogate); with one, it is read and written anew.
  if (!literal.includes('\\')) return { text: literal.slice(1, -1), json: literal };
  const text = JSON.parse(literal) as string;
  return { text, json: JSON.stringify(text) };
}
