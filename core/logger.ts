import pino, { type Logger } from 'pino';

/** Structured JSON logs; credentials are redacted wherever they appear in a logged object. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['*.authorization', '*.headers.authorization', '*.headers["x-api-key"]', '*.api_key', '*.key'],
      censor: '[redacted]',
    },
  });
}
