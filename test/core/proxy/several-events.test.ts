/**
 * A reader may answer one upstream event with several client events: a translating family turns a
 * vendor's end event into the client API's finish chunk, usage chunk and end marker. Over real HTTP: an
 * upstream writing SSE, and the relay writing what the reader and the stages' event filters make of it.
 */
import t, { type Test } from 'tap';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamRelay } from '../../../core/proxy/stream-relay';
import { AnswerPhases } from '../../../core/proxy/answer-phases';
import type { EventFilter } from '../../../core/contracts/stage';
import type { ClientEvents, TranslatingReader } from '../../../core/contracts/reader';
import type { ServedRequest } from '../../../core/request/served-request';
import type { SseEvent } from '../../../core/base/sse';
import { Errors } from '../../../core/base/errors';
import { NO_USAGE } from '../../../core/contracts/usage';

/** A vendor that ends its stream with one `message-end` event carrying the finish reason and usage. */
const UPSTREAM_EVENTS = [
  'event: content-delta\ndata: {"text":"Hel"}\n\n',
  'event: content-delta\ndata: {"text":"lo"}\n\n',
  'event: message-end\ndata: {"finish_reason":"MAX_TOKENS","usage":{"input":3,"output":2}}\n\n',
];

/** Translates the vendor's events into Chat Completions chunks, the end into three events. */
class VendorReader implements TranslatingReader {
  readonly translates = true;
  complete = false;
  failed = false;
  json() {
    return { usage: NO_USAGE, replace: {} };
  }
  usage() {
    return NO_USAGE;
  }
  event(ev: SseEvent): ClientEvents {
    const body = JSON.parse(ev.data) as { text?: string; finish_reason?: string; usage?: object };
    if (ev.event === 'content-delta') return chunk({ choices: [{ delta: { content: body.text } }] });
    if (ev.event !== 'message-end') return null;
    this.complete = true;
    return [
      chunk({
        choices: [{ delta: {}, finish_reason: body.finish_reason === 'MAX_TOKENS' ? 'length' : 'stop' }],
      }),
      chunk({ choices: [], usage: body.usage }),
      { data: '[DONE]' },
    ];
  }
}

const chunk = (body: object): SseEvent => ({
  data: JSON.stringify({ object: 'chat.completion.chunk', ...body }),
});

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A gateway side that relays the upstream's stream through `hooks`; resolves with what the client read. */
async function relayed(t: Test, filters: readonly EventFilter[]): Promise<string> {
  const phases = new AnswerPhases(filters.map((filter) => ({ events: () => filter })));
  const upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const frame of UPSTREAM_EVENTS) res.write(frame);
    res.end();
  });
  const upstreamUrl = await listening(upstream);
  const gateway = createServer((_req, res: ServerResponse) => {
    get(upstreamUrl, (upstreamRes: IncomingMessage) => {
      const ctx = {
        res,
        status: 0,
        stagesReached: 1,
        observed: { firstByteAt: 0 },
      } as unknown as ServedRequest;
      const idle = (ms: number) => Errors.streamIdle('vendor', ms);
      const relay = new StreamRelay(ctx, upstreamRes, new VendorReader(), DIALECT, phases, () => {}, idle);
      relay.start({}, () => Errors.streamCut('vendor'));
    });
  });
  const gatewayUrl = await listening(gateway);
  t.teardown(() => {
    upstream.close();
    gateway.close();
  });
  const res = await fetch(gatewayUrl);
  return res.text();
}

const DIALECT = { ping: ': ping\n\n', errorFrame: () => 'data: {"error":{}}\n\n' };

const dataOf = (text: string): string[] =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => frame.replace(/^data: /, ''));

t.test("the vendor's end event becomes a finish chunk, a usage chunk and [DONE]", async (t) => {
  const events = dataOf(await relayed(t, []));
  t.equal(events.length, 5);
  t.match(JSON.parse(events[0]!), { choices: [{ delta: { content: 'Hel' } }] });
  t.match(JSON.parse(events[2]!), { choices: [{ finish_reason: 'length' }] }, 'the real finish reason');
  t.match(JSON.parse(events[3]!), { choices: [], usage: { input: 3, output: 2 } });
  t.equal(events[4], '[DONE]');
});

t.test("the stages' event filters see each of the several events, and may drop one", async (t) => {
  const seen: string[] = [];
  const dropUsage: EventFilter = {
    event: (ev) => {
      seen.push(ev.data);
      return ev.data.includes('"usage"') ? null : ev;
    },
  };
  const events = dataOf(await relayed(t, [dropUsage]));
  t.equal(seen.length, 5, 'every client event went through the filter');
  t.strictSame(events.slice(2), [events[2], '[DONE]']);
  t.notOk(
    events.some((e) => e.includes('"usage"')),
    'the usage chunk was dropped',
  );
  t.equal(events.length, 4);
});
