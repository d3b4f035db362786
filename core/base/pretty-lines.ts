/**
 * The log's lines made readable at a terminal (pino-pretty): local time to the millisecond, the level,
 * the request id before the message, the other fields on the same line. Text that is not a log line (the
 * first key, printed beside the log) passes through as it is.
 *
 * pino-pretty's line function, not its stream: the log's own output (log-output.ts) renders each chunk
 * as it hands it on, so pretty lines keep the order of everything written beside them (its stream sends
 * text that is not JSON around the lines it still holds) and are written at exit like JSON ones.
 */
import { isColorSupported, prettyFactory } from 'pino-pretty';

/** Whether lines to a terminal are coloured: unless NO_COLOR says not. */
export const colourAt = (terminal: boolean): boolean => terminal && isColorSupported;

/** Renders whole lines (each ending in a newline), one by one; `colour` only for a terminal. */
export function prettyLines(colour: boolean): (lines: string) => string {
  const pretty = prettyFactory({
    colorize: colour,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,request_id',
    messageFormat: '{if request_id}[{request_id}] {end}{msg}',
    // An access line stays one line; an error's stack still gets lines of its own.
    singleLine: true,
  });
  return (lines) => {
    let out = '';
    let start = 0;
    for (let end = lines.indexOf('\n'); end !== -1; end = lines.indexOf('\n', start)) {
      out += pretty(lines.slice(start, end));
      start = end + 1;
    }
    return out + lines.slice(start);
  };
}
