import t, { type Test } from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  pointUpstreamsAt,
  startTestGateway,
  withoutStage,
  type ConfigDoc,
  type TestGateway,
} from '../../helpers/gateway';
import { openStream, parseSse, sseJson, type ErrorBody, untilData } from '../../helpers/http';
import { eventually, until } from '../../helpers/wait';

const streamChat = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }], stream: true };

/** A stream chunk as the client parses it: content deltas, or an error frame (the gateway's or the upstream's). */
interface Chunk {
  choices?: { delta?: { content?: string | null } }[];
  usage?: unknown;
  error?: { code?: string | null; type?: string; message?: string };
}

/** One read from the socket and when it happened. */
interface Arrival {
  readonly at: number;
  readonly text: string;
}

/** Reads a response to its end, noting when each piece arrived: buffering shows as one late arrival. */
async function readArrivals(res: IncomingMessage): Promise<Arrival[]> {
  const arrivals: Arrival[] = [];
  res.setEncoding('utf8');
  for await (const chunk of res) arrivals.push({ at: performance.now(), text: chunk as string });
  return arrivals;
}

const joined = (arrivals: readonly Arrival[]): string => arrivals.map((a) => a.text).join('');
const contentOf = (chunks: readonly Chunk[]): string =>
  chunks
    .flatMap((c) => c.choices ?? [])
    .map((c) => c.delta?.content ?? '')
    .join('');

/** Opens a stream with this request id and simulator controls, and reads it whole. */
async function stream(gw: TestGateway, id: string, controls: Record<string, string> = {}) {
  const started = performance.now();
  const res = await openStream(`${gw.url}/v1/chat/completions`, streamChat, gw.key, {
    'x-request-id': id,
    ...controls,
  });
  const arrivals = await readArrivals(res);
  const text = joined(arrivals);
  return { res, arrivals, text, started, chunks: sseJson<Chunk>(text) };
}

/** The upstream's log entry for a request id, once it exists. */
const upstreamEntry = (gw: TestGateway, id: string) => gw.sim.log.list(id)[0];

/** One content chunk of a chat stream as an upstream writes it, and the stream's end. */
const frame = (content: string): string =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;
const DONE = 'data: [DONE]\n\n';

/**
 * An upstream the test drives: it answers the request's headers at once, then writes only what the test
 * writes to `response`, so a test can wait for the client to have one thing before the next is sent.
 */
async function heldUpstream(t: Test): Promise<{ origin: string; response: Promise<ServerResponse> }> {
  let answered: (res: ServerResponse) => void = () => undefined;
  const response = new Promise<ServerResponse>((resolve) => (answered = resolve));
  const upstream = createServer((req, res) => {
    req.resume().on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
      answered(res);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    upstream.closeAllConnections();
    upstream.close();
  });
  return { origin: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, response };
}

/** Notes each read of a response as it comes; `holds` waits until the text read so far passes `test`. */
function reading(res: IncomingMessage) {
  const arrivals: Arrival[] = [];
  res.setEncoding('utf8');
  res.on('data', (text: string) => arrivals.push({ at: performance.now(), text }));
  const ended = new Promise<void>((resolve) => res.on('end', resolve));
  const holds = (test: (text: string) => boolean, what: string): Promise<string> =>
    until(() => joined(arrivals), test, { what });
  return { arrivals, ended, holds };
}

/** The text a chunk's content makes in its frame, as the client reads it. */
const contentText = (content: string): string => JSON.stringify({ content }).slice(1, -1);

t.test('streams are relayed event by event', async (t) => {
  const gw = await startTestGateway(t);

  t.test('events are written as they arrive, not buffered to the end', async (t) => {
    // The upstream writes each event only once the client has read the one before: relayed as they come,
    // each arrives in a read of its own; held back to the end, the first never arrives (the wait fails).
    const upstream = await heldUpstream(t);
    const held = await startTestGateway(t, (doc) => pointUpstreamsAt(doc, upstream.origin));
    const client = reading(await openStream(`${held.url}/v1/chat/completions`, streamChat, held.key));
    const sending = await upstream.response;
    const words = ['Lorem', ' ipsum', ' dolor', ' sit', ' amet'];
    const writtenAt: number[] = [];
    for (const word of words) {
      writtenAt.push(performance.now());
      sending.write(frame(word));
      await client.holds((text) => text.includes(contentText(word)), `the client reading ${word}`);
    }
    sending.end(DONE);
    await client.ended;
    const { arrivals } = client;
    const withContent = arrivals.filter((a) => contentOf(sseJson<Chunk>(a.text)) !== '');
    t.ok(withContent.length >= 4, `content arrived in ${withContent.length} separate reads`);
    // When each word reached the client: the read that completed its event.
    const arrivedAt = words.map((word) => {
      let text = '';
      return arrivals.find((a) => (text += a.text).includes(contentText(word)))?.at ?? Infinity;
    });
    t.ok(
      arrivedAt.every((at, i) => i + 1 === words.length || at < writtenAt[i + 1]!),
      'each event reached the client before the upstream wrote the next',
    );
    t.equal(contentOf(sseJson<Chunk>(joined(arrivals))), 'Lorem ipsum dolor sit amet');
  });

  t.test('SSE headers are set and the stream ends with [DONE]', async (t) => {
    const { res, text } = await stream(gw, 'relay-headers');
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-type'], 'text/event-stream');
    t.equal(res.headers['cache-control'], 'no-cache');
    t.equal(res.headers['x-accel-buffering'], 'no');
    t.equal(res.headers['x-request-id'], 'relay-headers');
    t.ok(text.endsWith('data: [DONE]\n\n'), 'the last frame is [DONE]');
    const events = parseSse(text);
    t.equal(events.filter((e) => e.data === '[DONE]').length, 1, 'exactly one [DONE]');
    // The gateway asked the upstream for usage; a client that did not ask must not see it.
    t.notOk(
      sseJson<Chunk>(text).some((c) => 'usage' in c),
      'no usage the client did not ask for',
    );
  });

  t.test('client disconnect aborts the upstream request at once', async (t) => {
    const id = 'relay-client-gone';
    // 5 tokens/s × 50 tokens: ten seconds of stream if nobody stops it.
    const res = await openStream(`${gw.url}/v1/chat/completions`, streamChat, gw.key, {
      'x-request-id': id,
      'x-sim-tps': '5',
      'x-sim-tokens': '50',
    });
    res.setEncoding('utf8');
    await untilData(res, '"content":"Lorem"');
    const gone = performance.now();
    res.socket.destroy();
    // Room for a loaded machine, and still half the stream's own ten seconds.
    await eventually(() => upstreamEntry(gw, id)?.aborted === true, 5_000, 'the upstream request aborted');
    t.pass(`upstream aborted ${Math.round(performance.now() - gone)} ms after the client left`);
    t.equal(upstreamEntry(gw, id)?.finished, false, 'the upstream never finished its stream');
  });

  t.test(
    'a cut upstream stream ends with an upstream_stream_cut error event, never a clean end',
    async (t) => {
      const { res, text, chunks } = await stream(gw, 'relay-cut', { 'x-sim-cut-after': '3' });
      t.equal(res.statusCode, 200, 'the stream had already begun');
      t.equal(contentOf(chunks), 'Lorem ipsum dolor', 'the chunks delivered before the cut arrive');
      const last = chunks[chunks.length - 1];
      t.equal(last?.error?.code, 'upstream_stream_cut');
      t.equal(last?.error?.type, 'error');
      t.notOk(text.includes('[DONE]'), 'no [DONE] after a cut');
      t.equal(chunks.filter((c) => c.error).length, 1, 'one error event');
    },
  );

  t.test(
    'an in-stream upstream error is relayed once, without a second error from the gateway',
    async (t) => {
      const { res, text, chunks } = await stream(gw, 'relay-upstream-error', { 'x-sim-error-after': '2' });
      t.equal(res.statusCode, 200);
      t.equal(contentOf(chunks), 'Lorem ipsum');
      const errors = chunks.filter((c) => c.error);
      t.equal(errors.length, 1, 'exactly one error event');
      t.equal(errors[0]?.error?.type, 'server_error', "it is the upstream's own error");
      t.match(errors[0]?.error?.message, /simulated mid-stream/);
      t.notOk(text.includes('[DONE]'));
    },
  );

  t.test('an upstream failure before the first byte keeps its status and JSON body', async (t) => {
    for (const status of [500, 429]) {
      const { res, text } = await stream(gw, `relay-early-${status}`, { 'x-sim-status': String(status) });
      t.equal(res.statusCode, status, 'not a 200 with an empty stream');
      t.equal(res.headers['content-type'], 'application/json');
      const body = JSON.parse(text) as { error: { type: string } };
      t.equal(body.error.type, status === 500 ? 'server_error' : 'requests', "the upstream's error body");
      if (status === 429) t.equal(res.headers['retry-after'], '1');
    }
  });
});

t.test("the client has its 200 and headers before the upstream's first event", async (t) => {
  // An upstream that answers at once and thinks before its first token, as models do: here it holds its
  // first event until the client has its headers.
  const upstream = await heldUpstream(t);
  const gw = await startTestGateway(t, (doc) => pointUpstreamsAt(doc, upstream.origin));
  const res = await openStream(`${gw.url}/v1/chat/completions`, streamChat, gw.key);
  const client = reading(res);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'text/event-stream');
  t.pass('the headers came while the upstream still held its first event');
  (await upstream.response).end(frame('hi') + DONE);
  await client.ended;
  const text = joined(client.arrivals);
  t.ok(text.startsWith(frame('hi')), 'the first body bytes are the first event');
  t.equal(contentOf(sseJson<Chunk>(text)), 'hi');
  t.ok(text.endsWith('data: [DONE]\n\n'));
});

t.test('keep-alive pings while the upstream is silent', async (t) => {
  const upstream = await heldUpstream(t);
  const gw = await startTestGateway(t, (doc) => {
    pointUpstreamsAt(doc, upstream.origin);
    setRelay(doc, { ping_every: '100ms' });
  });
  const client = reading(await openStream(`${gw.url}/v1/chat/completions`, streamChat, gw.key));
  const sending = await upstream.response;
  sending.write(frame('Lorem'));
  // Silent from here until the client has had two pings.
  const pingsIn = (text: string): number => text.split('\n').filter((line) => line === ': ping').length;
  await client.holds((text) => pingsIn(text) >= 2, 'two pings');
  sending.end(frame(' ipsum') + DONE);
  await client.ended;
  const text = joined(client.arrivals);
  const chunks = sseJson<Chunk>(text);
  const pings = pingsIn(text);
  t.ok(pings >= 2, `${pings} ping comments while the upstream was silent`);
  t.ok(text.endsWith('data: [DONE]\n\n'), 'the stream still completes normally');
  t.equal(contentOf(chunks), 'Lorem ipsum');
  t.notOk(
    chunks.some((c) => c.error),
    'no error event',
  );
});

t.test('an upstream silent longer than stream_idle ends the stream with an error event', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    (doc.server as ConfigDoc).timeouts = { stream_idle: '300ms' };
  });
  const id = 'idle-upstream';
  const { text, chunks, arrivals, started } = await stream(gw, id, { 'x-sim-silence-ms': '10000' });
  const last = chunks[chunks.length - 1] as ErrorBody | undefined;
  t.equal(last?.error.code, 'upstream_stream_idle');
  t.equal(last?.error.type, 'error');
  t.notOk(text.includes('[DONE]'), 'no [DONE]');
  const took = arrivals[arrivals.length - 1]!.at - started;
  t.ok(took < 5_000, `ended after ${Math.round(took)} ms, not after the upstream's 10 s of silence`);
  await eventually(() => upstreamEntry(gw, id)?.aborted === true, 5_000, 'the upstream request aborted');
  t.pass('the upstream request was aborted');
});

t.test('without sse-relay in the pipeline, streams are piped through', async (t) => {
  const gw = await startTestGateway(t, (doc) => {
    withoutStage(doc, 'sse-relay');
  });

  t.test('a stream completes', async (t) => {
    const { res, text, chunks } = await stream(gw, 'piped');
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-type'], 'text/event-stream');
    t.equal(contentOf(chunks), 'Lorem ipsum dolor sit amet consectetur adipiscing elit sed do Lorem ipsum');
    t.ok(text.endsWith('data: [DONE]\n\n'), 'the stream completes');
    t.notOk(
      chunks.some((c) => 'usage' in c),
      'no usage keys the client did not ask for',
    );
  });

  t.test('a cut upstream still ends the client stream, with an error frame', async (t) => {
    const res = await openStream(`${gw.url}/v1/chat/completions`, streamChat, gw.key, {
      'x-request-id': 'piped-cut',
      'x-sim-cut-after': '3',
    });
    let body = '';
    res.on('data', (d: Buffer) => (body += d.toString()));
    // Without the relay there is no idle limit: a response the cut did not end would never end.
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      new Promise<boolean>((resolve) => res.once('end', () => resolve(true))),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
    ]);
    clearTimeout(timer);
    t.ok(ended, 'the client response ends after the cut');
    t.match(body, /data: \{"error":\{"code":"upstream_stream_cut"/, 'the client is told the stream was cut');
    t.notMatch(body, /\[DONE\]/);
    res.destroy();
  });
});

/** Replaces the sse-relay entry's options. */
function setRelay(doc: ConfigDoc, options: Record<string, string>): void {
  doc.pipeline = (doc.pipeline as unknown[]).map((e) =>
    typeof e === 'object' && e && 'sse-relay' in e ? { 'sse-relay': options } : e,
  );
}
