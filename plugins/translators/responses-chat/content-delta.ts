/**
 * The text of a chat chunk whose one choice's delta is `{"content": "…"}` and nothing else, with no finish
 * yet: most chunks of a stream. Read from the chunk's text without parsing the chunk (only the string
 * literal is parsed), as the gateway's chat relay reads only the chunks it must. Any other chunk (tool
 * calls, reasoning, a refusal, a finish, several choices, usage, an error, another spacing) is undefined:
 * the caller parses it whole, so a vendor's unusual chunk costs a parse, never a misreading.
 */
const CONTENT_ONLY = /"delta":\{"content":("(?:[^"\\]|\\.)*")\}/;

export function contentOnlyDelta(data: string): string | undefined {
  if (!data.includes('"finish_reason":null')) return undefined;
  const delta = data.indexOf('"delta":');
  if (delta < 0 || data.indexOf('"delta":', delta + 8) >= 0) return undefined; // one choice only
  const match = CONTENT_ONLY.exec(data);
  return match ? (JSON.parse(match[1]!) as string) : undefined;
}
