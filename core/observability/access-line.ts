/**
 * The access line, by a serializer compiled from its one fixed shape (access-line-shape.ts) by
 * fast-json-stringify at build time: it writes each field by name with no walk over keys, no per-key
 * serializer or redaction lookups and no escape scan of strings that need none, which pino's generic path
 * does for every field of every line. The line is the one pino wrote, field for field.
 */
import type { AccessLine } from './access-line-shape';
import serialize from './access-line-serializer';

export { ACCESS_MESSAGE, INFO, type AccessLine } from './access-line-shape';

/** The line, newline included, as the log's destination takes it. */
export function accessLine(line: AccessLine): string {
  return `${serialize(line)}\n`;
}
