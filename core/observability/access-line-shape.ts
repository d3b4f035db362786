/**
 * The access line's one fixed shape: its fields as pino wrote them (level and time first, the message
 * last, absent fields left out), and the same as a JSON Schema, from which `npm run build` compiles the
 * line's serializer (scripts/build-serializers.js).
 */
export const ACCESS_MESSAGE = 'request';

/** Pino's number for `info`, the access lines' level. */
export const INFO = 30;

/**
 * Everything an access line says, level, time (ms since the epoch) and message included, as pino wrote
 * them; `undefined` fields are left out of the line. Callers build it as one literal: a spread into it
 * would copy fields on V8's slow path.
 */
export interface AccessLine {
  readonly level: typeof INFO;
  readonly time: number;
  readonly request_id: string;
  readonly method: string | undefined;
  readonly path: string;
  readonly client: string;
  readonly status: number;
  readonly outcome: string;
  readonly code: string | undefined;
  readonly model?: string | undefined;
  readonly upstream?: string | undefined;
  readonly key_id?: string | undefined;
  readonly duration_ms: number;
  readonly gateway_ms: number;
  readonly upstream_ms: number;
  readonly bytes_in: number;
  readonly bytes_out: number;
  readonly prompt_tokens?: number | undefined;
  readonly completion_tokens?: number | undefined;
  /** What guardrails did, `name:action` each (GatewayContext.guardrails). */
  readonly guardrail?: readonly string[] | undefined;
  readonly trace_id: string | undefined;
  readonly msg: typeof ACCESS_MESSAGE;
}

const text = { type: 'string' } as const;
/**
 * Strings the gateway makes or has checked to hold no character JSON escapes, written without the escape
 * scan: a request id (request-id.ts), a method (Node's parser takes only known methods), an outcome and
 * an error code (the gateway's own words), a key id (a key's prefix, or `declared:` and a checked name),
 * a trace id (hex).
 */
const plain = { type: 'string', format: 'unsafe' } as const;
/** Numbers are written as pino writes them (`'' + n`), whole or not. */
const number = { type: 'number' } as const;

/** Every field of AccessLine, in the order pino wrote them. */
const properties: Readonly<Record<keyof AccessLine, object>> = {
  level: number,
  time: number,
  request_id: plain,
  method: plain,
  path: text,
  client: text,
  status: number,
  outcome: plain,
  code: plain,
  model: text,
  upstream: text,
  key_id: plain,
  duration_ms: number,
  gateway_ms: number,
  upstream_ms: number,
  bytes_in: number,
  bytes_out: number,
  prompt_tokens: number,
  completion_tokens: number,
  guardrail: { type: 'array', items: text },
  trace_id: plain,
  msg: plain,
};

/** The schema the access line's serializer is compiled from. */
export const accessLineSchema = { type: 'object', properties } as const;
