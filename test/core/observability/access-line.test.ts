/**
 * The access line's compiled serializer writes the line pino wrote for the same fields: same JSON, same
 * field order, absent fields left out, strings escaped, a line a log shipper reads as one record.
 */
import t from 'tap';
import pino from 'pino';
import { ACCESS_MESSAGE, accessLine, INFO, type AccessLine } from '../../../core/observability/access-line';

/** What pino writes for `fields` at info with the message `request`, as the gateway's logger is set up. */
function pinoLine(fields: Record<string, unknown>, time: number): string {
  let written = '';
  const logger = pino(
    { base: undefined, timestamp: () => `,"time":${time}` },
    { write: (s: string) => (written = s) },
  );
  logger.info(fields, ACCESS_MESSAGE);
  return written;
}

const full: AccessLine = {
  level: INFO,
  time: 1_795_000_000_123,
  request_id: 'req-1',
  method: 'POST',
  path: '/v1/"quoted"\\and\u0001control',
  client: '2001:db8::1',
  status: 200,
  outcome: 'ok',
  code: 'upstream_error',
  model: 'modela-5.5',
  upstream: 'modela-main',
  key_id: 'key_0123456789',
  duration_ms: 12.3,
  gateway_ms: 0.4,
  upstream_ms: 11.9,
  bytes_in: 90,
  bytes_out: 812,
  prompt_tokens: 3,
  completion_tokens: 12,
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  msg: ACCESS_MESSAGE,
};

const refused: AccessLine = {
  level: INFO,
  time: 1_795_000_000_456,
  request_id: 'r-1',
  method: undefined,
  path: '/v1/nothing',
  client: '127.0.0.1',
  status: 404,
  outcome: 'ok',
  code: 'not_found',
  duration_ms: 0.1,
  gateway_ms: 0.1,
  upstream_ms: 0,
  bytes_in: 0,
  bytes_out: 230,
  trace_id: undefined,
  msg: ACCESS_MESSAGE,
};

void t.test('the same line pino writes, for every field and for absent ones', (t) => {
  for (const [name, line] of [
    ['every field set, a path needing escapes', full],
    ['a refusal: no model, key or usage; no method', refused],
  ] as const) {
    const fields: Record<string, unknown> = { ...line };
    delete fields.level; // pino writes these three itself
    delete fields.time;
    delete fields.msg;
    const ours = accessLine(line);
    t.equal(ours, pinoLine(fields, line.time), name);
    t.ok(ours.endsWith('}\n') && ours.indexOf('\n') === ours.length - 1, `${name}: one line`);
  }
  t.end();
});
