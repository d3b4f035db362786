/**
 * A real OTLP/HTTP traces receiver for tests: `POST /v1/traces` in protobuf (decoded with the classes
 * OpenTelemetry generated from its official proto definitions, from an earlier otlp-transformer) or in
 * JSON, each span kept in one plain shape whichever way it came.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
// OpenTelemetry's protobufjs classes for the OTLP protos (the package has no types for this path).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const protos = require('otlp-proto-decoding/build/src/generated/root') as ProtoRoot;

interface ProtoRoot {
  readonly opentelemetry: {
    readonly proto: {
      readonly collector: {
        readonly trace: {
          readonly v1: {
            readonly ExportTraceServiceRequest: {
              decode(bytes: Uint8Array): unknown;
              toObject(message: unknown, options: Record<string, unknown>): OtlpRequest;
            };
          };
        };
      };
    };
  };
}

/** The OTLP/JSON shape, which protobuf decodes into too (ids then as base64, converted below). */
interface OtlpRequest {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly OtlpAttribute[] };
    readonly scopeSpans?: readonly {
      readonly scope?: { readonly name?: string };
      readonly spans?: readonly OtlpSpan[];
    }[];
  }[];
}

interface OtlpAttribute {
  readonly key: string;
  readonly value: Record<string, unknown>;
}

interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number | string;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes?: readonly OtlpAttribute[];
  readonly events?: readonly { readonly name: string; readonly attributes?: readonly OtlpAttribute[] }[];
  readonly links?: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly status?: { readonly code?: number | string; readonly message?: string };
}

/** A span as the tests read it: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly events: readonly {
    readonly name: string;
    readonly attributes: Readonly<Record<string, unknown>>;
  }[];
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly status: number;
  readonly scope: string;
  readonly resource: Readonly<Record<string, unknown>>;
}

export interface OtlpReceiver {
  /** The traces URL, for OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or `tracing.endpoint`. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** The content type and headers of each export received. */
  readonly exports: { readonly contentType: string; readonly headers: IncomingMessage['headers'] }[];
  /** Resolves with the spans once `done` holds of them; rejects after `timeoutMs` naming the spans it has. */
  until(done: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
}

const KINDS: Readonly<Record<string, number>> = {
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

/** An AnyValue as a plain value. */
function plain(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) {
    const values = (value.arrayValue as { values?: Record<string, unknown>[] }).values ?? [];
    return values.map(plain);
  }
  return undefined;
}

const attributesOf = (list: readonly OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

/** Protobuf ids arrive as base64 (toObject's bytes), JSON ids as hex. */
const hexId = (id: string | undefined, binary: boolean): string =>
  !id ? '' : binary ? Buffer.from(id, 'base64').toString('hex') : id.toLowerCase();

function spansOf(request: OtlpRequest, binary: boolean): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span): ReceivedSpan => ({
        traceId: hexId(span.traceId, binary),
        spanId: hexId(span.spanId, binary),
        parentSpanId: hexId(span.parentSpanId, binary),
        name: span.name,
        kind: typeof span.kind === 'number' ? span.kind : (KINDS[span.kind] ?? 0),
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
        links: (span.links ?? []).map((l) => ({
          traceId: hexId(l.traceId, binary),
          spanId: hexId(l.spanId, binary),
        })),
        status: Number(span.status?.code ?? 0),
        scope: ss.scope?.name ?? '',
        resource: attributesOf(rs.resource?.attributes),
      })),
    ),
  );
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function decode(contentType: string, body: Buffer): ReceivedSpan[] {
  if (contentType.startsWith('application/json'))
    return spansOf(JSON.parse(body.toString('utf8')) as OtlpRequest, false);
  const type = protos.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  const request = type.toObject(type.decode(body), { longs: String, bytes: String, enums: Number });
  return spansOf(request, true);
}

export async function startOtlpReceiver(t: Test): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: OtlpReceiver['exports'] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const contentType = req.headers['content-type'] ?? '';
      exports.push({ contentType, headers: req.headers });
      spans.push(...decode(contentType, body));
      const json = contentType.startsWith('application/json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const until = (done: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs = 10_000) =>
    new Promise<ReceivedSpan[]>((resolve, reject) => {
      const check = () => {
        if (!done(spans)) return;
        cleanup();
        resolve(spans);
      };
      const timer = setTimeout(() => {
        cleanup();
        const names = spans.map((s) => s.name).join(', ');
        reject(new Error(`the receiver did not get the spans awaited; it has ${spans.length}: ${names}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans, exports, until };
}
