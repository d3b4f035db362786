/** A real pino logger whose lines a test reads back. */
import pino, { type Level, type Logger } from 'pino';

export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Pino's numbers for the levels tests look for. */
export const LEVEL = { info: 30, warn: 40, error: 50 } as const;

export function recordingLogger(level: Level = 'warn'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}
