/**
 * The kit's suite for families that answer at once (chat, messages, images). For each golden answer a
 * family lists, the fake upstream serves it and the suite asks the real gateway, over raw HTTP and through
 * the official SDK, and checks what a user gets and what is metered:
 * - an error answer (status ≥ 400) reaches the client with the upstream's status and body, byte for byte,
 *   for a stream request too, and is recorded with zero tokens (docs/behaviour.md: errors of the upstream
 *   keep their status and body; upstream error bodies are never billed);
 * - a JSON answer reaches the client as sent (with the gateway's estimate where the vendor sent no usage);
 * - a stream delivers every word, ends with the API's own end (`[DONE]`, `message_stop`) when the vendor's
 *   did, with the vendor's error event when it sent one, with the API's error event when the vendor's
 *   stream was cut, and never hangs;
 * - each request leaves exactly one usage record, holding what the case lists.
 */
import type { Test } from 'tap';
import type { UsageRecord } from '../../core/stores/usage-store';
import { parseSse } from '../helpers/http';
import { APIS, type ApiProfile, type ClientApi } from './apis';
import { bytesOf, isStream, type Answer } from './fake-upstream';
import { recordsOf, requestId, startKitGateway, type FamilyUnderTest, type KitGateway } from './kit-gateway';

export interface ChatFamilyKit extends FamilyUnderTest {
  /** The client API the family's models are served on. */
  readonly api: ClientApi;
  readonly cases: readonly ChatCase[];
}

export interface ChatCase {
  /** A `.sse` answer is asked for as a stream, a `.json` one without; an error answer both ways. */
  readonly answer: Answer;
  /** For a 2xx answer: what its usage record must hold (matched as `t.match` does). */
  readonly metered?: Partial<UsageRecord>;
}

/** Long enough for any fixture on a loaded machine; an answer that takes longer hangs. */
const ANSWER_MS = 5_000;

type Json = Record<string, unknown>;

interface Received {
  readonly status: number;
  readonly headers: Headers;
  readonly contentType: string;
  readonly text: string;
}

/** Runs the suite over `kit.cases`, one subtest per answer (and request kind), models taken in turn. */
export async function runChatFamilyKit(t: Test, kit: ChatFamilyKit): Promise<void> {
  await t.test(`plugin kit: ${kit.plugin}`, async (t) => {
    const k = await startKitGateway(t, kit);
    const api = APIS[kit.api];
    let turn = 0;
    for (const c of kit.cases) {
      const kinds = c.answer.status >= 400 ? (api.streams ? [false, true] : [false]) : [isStream(c.answer)];
      for (const stream of kinds) {
        const model = k.models[turn++ % k.models.length]!;
        const name = `${c.answer.file}${stream ? ' (stream)' : ''} on ${model}`;
        await t.test(name, (t) => checkCase(t, k, api, c, model, stream));
      }
    }
  });
}

async function checkCase(
  t: Test,
  k: KitGateway,
  api: ApiProfile,
  c: ChatCase,
  model: string,
  stream: boolean,
): Promise<void> {
  await k.upstream.clear();
  // Until cleared, so that a retry (should the gateway make one) meets the same answer.
  await k.upstream.serve(c.answer, { path_prefix: k.pathPrefix });
  const sent = bytesOf(c.answer).toString('utf8');
  const id = requestId(c.answer.file);
  const got = await send(k, api, api.body(model, stream), id);
  if (!got) return void t.fail(`no whole answer: it broke off, or took over ${ANSWER_MS} ms`);
  const failed = c.answer.status >= 400;
  if (failed) checkError(t, got, c.answer, sent);
  else if (stream) checkStream(t, api, got, sent);
  else checkJson(t, api, got, sent);

  const records = await recordsOf(k.gw, id);
  t.equal(records.length, 1, 'one usage record');
  const record = records[0];
  t.match(record, { model, upstream: k.upstreamName, status: got.status }, 'for this call');
  if (failed) t.match(record, { prompt_tokens: 0, completion_tokens: 0, estimated: false }, 'not billed');
  else t.match(record, c.metered ?? {}, 'metered as the case says');
  if (record?.estimated) t.ok(record.completion_tokens > 0, 'an estimate counts what was delivered');

  const viaSdk = await api.sdk(k.gw, model, stream, requestId(`sdk.${c.answer.file}`));
  const unfinished = stream && !vendorEvents(sent).some(api.isEnd);
  if (failed) t.match(viaSdk, { status: c.answer.status }, "the SDK raises the upstream's status");
  else if (unfinished) t.ok('error' in viaSdk, 'the SDK raises the error or the cut');
  else {
    const expected = api.visibleText(stream ? vendorEvents(sent) : (JSON.parse(sent) as Json));
    t.same(viaSdk, { text: expected }, 'the SDK reads the whole answer');
  }
}

/** Sends the request raw, as any HTTP client would; undefined when the answer breaks off or never ends. */
async function send(k: KitGateway, api: ApiProfile, body: Json, id: string): Promise<Received | undefined> {
  try {
    const res = await fetch(`${k.gw.url}${api.path}`, {
      method: 'POST',
      signal: AbortSignal.timeout(ANSWER_MS),
      headers: {
        authorization: `Bearer ${k.gw.key}`,
        'content-type': 'application/json',
        'modeld-version': '2023-06-01',
        'x-request-id': id,
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      contentType: res.headers.get('content-type') ?? '',
      text,
    };
  } catch {
    return undefined;
  }
}

function checkError(t: Test, got: Received, answer: Answer, sent: string): void {
  t.equal(got.status, answer.status, "the client gets the upstream's status");
  t.match(got.contentType, 'application/json');
  t.equal(got.text, sent, 'and its body, byte for byte');
  // Retry-After and the like tell the client's SDK when to come back. The vendor's x-ratelimit-*
  // describe the gateway's account with the vendor: the client gets the gateway's own for its key.
  for (const [name, value] of Object.entries(answer.headers ?? {})) {
    if (!GATEWAY_OWNED.test(name)) t.equal(got.headers.get(name), value, `and its ${name} header`);
    else t.not(got.headers.get(name), value, `not the vendor's ${name}`);
  }
  t.ok(got.headers.get('x-ratelimit-limit-requests'), "the gateway's own rate-limit headers");
}

const GATEWAY_OWNED = /^x-ratelimit-/;

/** A recording's events; its last one counts even without a closing blank line (SSE flushes at EOF). */
const vendorEvents = (sent: string) => parseSse(`${sent}\n\n`);

function checkJson(t: Test, api: ApiProfile, got: Received, sent: string): void {
  t.equal(got.status, 200);
  const { usage: sentUsage, ...vendor } = JSON.parse(sent) as Json;
  if (sentUsage !== undefined || !api.usageRequired) {
    return void t.equal(got.text, sent, "the vendor's answer, byte for byte");
  }
  const { usage, ...rest } = JSON.parse(got.text) as Json;
  t.same(rest, vendor, "the vendor's answer");
  t.ok(usage, 'with the usage the gateway estimated, as every answer carries usage');
}

function checkStream(t: Test, api: ApiProfile, got: Received, sent: string): void {
  t.equal(got.status, 200);
  t.match(got.contentType, 'text/event-stream');
  // The client's events as a parser without an EOF flush reads them: the end must be a whole event.
  const events = parseSse(got.text);
  const vendor = vendorEvents(sent);
  const text = (evs: typeof events): string => evs.map((ev) => api.eventText(ev)).join('');
  t.equal(text(events), text(vendor), 'every word the vendor sent');
  const last = events.at(-1);
  const vendorError = vendor.map((ev) => api.errorOf(ev)).find((e) => e !== undefined);
  if (vendor.some(api.isEnd)) {
    t.ok(last && api.isEnd(last), "ends with the API's own end");
    t.notOk(
      events.some((ev) => api.errorOf(ev) !== undefined),
      'and no error',
    );
  } else if (vendorError) {
    t.same(last && api.errorOf(last), vendorError, "the vendor's error event ends the stream");
    t.notOk(events.some(api.isEnd), 'and never the end of a whole answer');
  } else {
    t.match(last && api.errorOf(last), { code: 'upstream_stream_cut' }, 'a cut stream ends with an error');
    t.notOk(events.some(api.isEnd), 'and never the end of a whole answer');
  }
}
