/**
 * A JSON string read from the text of the JSON it is in, as the guard's fast readers take it: the
 * model's text is inside strings, where quotes and control characters are escaped, so the members
 * around it are the vendor's own and a regex can place them.
 */

/**
 * The text of a JSON string from its inside as written (between its quotes); undefined when that is no
 * JSON string's inside. Only text with an escape is parsed.
 */
export function stringText(inside: string): string | undefined {
  if (!inside.includes('\\')) return inside;
  try {
    return JSON.parse(`"${inside}"`) as string;
  } catch {
    return undefined;
  }
}

/** A JSON string's inside as a regex captures it: no quote or control character unescaped. */
export const STRING_INSIDE = String.raw`((?:[^"\\\x00-\x1f]|\\.)*)`;
