import pino, { type Logger } from 'pino';
import { chosenFormat, stdoutIsTerminal, type LogFormat } from './log-format';
import { LogOutput } from './log-output';
import type * as PrettyLines from './pretty-lines';
import { token } from './token';

const outputs = new WeakMap<Logger, LogOutput>();

/**
 * Structured logs on stdout: JSON lines, or pretty ones for a person at a terminal (`format`,
 * gateway.yaml's `logging.format`; log-format.ts); credentials are redacted wherever they appear in a
 * logged object.
 *
 * Written asynchronously in chunks (log-output.ts) rather than one blocking write per line: with an
 * access line per request, the write per line was a measurable share of a request's CPU. What is
 * gathered is written when the process exits (an uncaught exception included); a SIGKILL loses at most
 * the last 200 ms.
 */
export function createLogger(level: string, format: LogFormat = 'auto'): Logger {
  const output = new LogOutput(renderFor(format));
  const logger = pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['*.authorization', '*.headers.authorization', '*.headers["x-api-key"]', '*.api_key', '*.key'],
        censor: '[redacted]',
      },
    },
    output,
  );
  outputs.set(logger, output);
  return logger;
}

/** What the log's chunks become: nothing for JSON; pretty lines, coloured on a terminal (unless NO_COLOR). */
function renderFor(format: LogFormat): ((lines: string) => string) | undefined {
  const terminal = stdoutIsTerminal();
  if (chosenFormat(format, terminal) === 'json') return undefined;
  // Loaded only for pretty lines: a JSON log, every deployment's, keeps pino-pretty out of the heap,
  // where its modules made each major collection mark more (a stream's count rose 3.5% with it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { colourAt, prettyLines } = require('./pretty-lines') as typeof PrettyLines;
  return prettyLines(colourAt(terminal));
}

/**
 * Prints `lines` (whole lines, plain text: the first key) on stdout beside the log of a logger from
 * `createLogger`, after the lines logged before them, and hands them on at once. They go through the
 * log's own stream: a write of its own to stdout could land before a chunk of the log still being
 * written asynchronously, which a synchronous flush cannot hurry.
 */
export function printAfterLogs(logger: Logger, lines: string): void {
  const output = outputs.get(logger);
  if (!output) throw new Error('the logger was not made by createLogger');
  output.write(lines);
  output.flush();
}

/** Where a logger's lines go: lines serialised elsewhere (the access log's) are written beside its own. */
export interface LineOutput {
  /** One or more whole lines, each ending in a newline. */
  write(lines: string): void;
}

/**
 * The destination `logger` writes to (its parent's, for a child), as pino's symbols for integrations
 * name it: the one stream, so lines written here keep their order with the logger's own.
 */
export function lineOutput(logger: Logger): LineOutput {
  const stream = (logger as unknown as Record<symbol, LineOutput | undefined>)[pino.symbols.streamSym];
  if (!stream) throw new Error('the logger has no destination stream');
  return stream;
}

export const LoggerToken = token<Logger>('Logger');
