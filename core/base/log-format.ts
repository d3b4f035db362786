/**
 * How the log is written: JSON lines for whatever reads it (a collector, a file, `jq`), or pretty lines
 * for a person at a terminal. gateway.yaml's `logging.format`; `auto` chooses by where stdout goes, as
 * Fastify does.
 */
import { isatty } from 'node:tty';

/** gateway.yaml's `logging.format`. */
export type LogFormat = 'auto' | 'pretty' | 'json';

/** What is written: `auto` is pretty on a terminal and JSON anywhere else. */
export function chosenFormat(format: LogFormat, terminal: boolean): 'pretty' | 'json' {
  if (format !== 'auto') return format;
  return terminal ? 'pretty' : 'json';
}

/** Whether the log's stdout (file descriptor 1, which the log writes to) is a terminal. */
export const stdoutIsTerminal = (): boolean => isatty(1);
