/**
 * The kit's suite for families that answer at once (chat, messages, images, embeddings). For each golden answer a
 * family lists, the fake upstream serves it and the suite asks the real gateway, over raw HTTP and through
 * the official SDK, and checks what a user gets and what is metered:
 * - every error answer has the vendor's documented error shape (the family's `errorShape`), reaches the
 *   client with the upstream's status and body, byte for byte, for a stream request too, and is recorded
 *   with zero tokens (docs/behaviour.md: upstream error bodies are never billed);
 * - a JSON answer reaches the client as sent (with the gateway's estimate where the vendor sent no usage);
 * - a stream delivers every word, ends with the API's own end (`[DONE]`, `message_stop`) when the vendor's
 *   did, with the vendor's error event when it sent one, with the API's error event when the vendor's
 *   stream was cut, and never hangs;
 * - where a case gives the client's answer (`expect`: a translating family's, or an error body the gateway
 *   maps to the contract's shape), the client gets exactly that instead: the JSON body or error body
 *   holding every member it lists, the stream event for event (finish reasons, usage chunk, end, error);
 * - the upstream receives what the family must send (upstream-request.ts): the path, the credential and
 *   other headers its options give, never the client's own key, and the body with the route's model id;
 * - each request leaves exactly one usage record, holding what the case lists.
 *
 * A family served on another API than its vendor's through a translator (Responses on a chat family)
 * runs the same cases with `vendorApi`: the vendor's answers are read in the vendor's API and the
 * client's in its own, and the client must get the same words, the same end or failure, and the usage
 * the family meters.
 */
import type { Test } from 'tap';
import type { UsageRecord } from '../../core/stores/usage-store';
import { parseSse } from '../helpers/http';
import { ANSWER_MS, APIS, type ApiProfile, type ClientApi } from './apis';
import { bytesOf, isStream, type Answer } from './fake-upstream';
import { holds } from './holds';
import {
  callOf,
  checkUpstreamRequests,
  clientBodyRenamed,
  expectedRequest,
  keyLeaks,
  modelRenamed,
  upstreamRequestsOf,
  type Defaults,
  type UpstreamExpectation,
} from './upstream-request';
import {
  modelsServedOn,
  recordsOf,
  requestId,
  startKitGateway,
  type FamilyUnderTest,
  type KitGateway,
} from './kit-gateway';

export interface ChatFamilyKit extends FamilyUnderTest {
  /** The client API the family's models are served on: a shipped one, or a profile of the family's own. */
  readonly api: ClientApi | ApiProfile;
  /** The API the vendor's answers are in, where the gateway translates them into `api`; absent, `api`. */
  readonly vendorApi?: ClientApi;
  /** What the upstream receives where it differs from the kit's defaults (upstream-request.ts). */
  readonly upstream?: UpstreamExpectation;
  readonly cases: readonly ChatCase[];
}

/** The client's API and the vendor's, which differ where the gateway translates. */
interface Apis {
  readonly client: ApiProfile;
  readonly vendor: ApiProfile;
  /** What the upstream receives unless the family says otherwise, with the family's declaration. */
  readonly upstream: Defaults;
  readonly declared?: UpstreamExpectation;
}

export interface ChatCase {
  /** The vendor's answer. A `.sse` one is asked for as a stream, a `.json` one without; an error both ways. */
  readonly answer: Answer;
  /**
   * What the client must get, where it is not the vendor's answer itself: the answer in the client's API
   * (a `.json` body, or a `.sse` stream including the gateway's error event on a cut).
   */
  readonly expect?: Answer;
  /** Members the request adds to the API's smallest body, e.g. `stream_options`. */
  readonly request?: Readonly<Record<string, unknown>>;
  /** For a 2xx answer: what its usage record must hold (matched as `t.match` does). */
  readonly metered?: Partial<UsageRecord>;
  /** What the upstream receives for this case, over the family's `upstream`. */
  readonly upstream?: UpstreamExpectation;
}

type Json = Record<string, unknown>;

interface Received {
  readonly status: number;
  readonly headers: Headers;
  readonly contentType: string;
  readonly text: string;
}

/** Runs the suite over `kit.cases`, one subtest per answer (and request kind), models taken in turn. */
export async function runChatFamilyKit(t: Test, kit: ChatFamilyKit): Promise<void> {
  const apiName = typeof kit.api === 'string' ? kit.api : kit.api.path;
  await t.test(`plugin kit: ${kit.plugin} (${apiName})`, async (t) => {
    const k = await startKitGateway(t, kit);
    const api = typeof kit.api === 'string' ? APIS[kit.api] : kit.api;
    const vendor = kit.vendorApi ? APIS[kit.vendorApi] : api;
    const vendorName = kit.vendorApi ?? (typeof kit.api === 'string' ? kit.api : undefined);
    const upstream: Defaults = {
      pathOption: vendorName && `${vendorName}_path`,
      body: vendor === api ? clientBodyRenamed : modelRenamed,
    };
    const apis: Apis = { client: api, vendor, upstream, declared: kit.upstream };
    const models = await modelsServedOn(k, api.path);
    let turn = 0;
    for (const c of kit.cases) {
      const kinds = c.answer.status >= 400 ? (api.streams ? [false, true] : [false]) : [isStream(c.answer)];
      for (const stream of kinds) {
        const model = models[turn++ % models.length]!;
        const name = `${c.answer.file}${stream ? ' (stream)' : ''} on ${model}`;
        await t.test(name, (t) => checkCase(t, k, apis, c, model, stream));
      }
    }
  });
}

async function checkCase(
  t: Test,
  k: KitGateway,
  apis: Apis,
  c: ChatCase,
  model: string,
  stream: boolean,
): Promise<void> {
  const api = apis.client;
  await k.upstream.clear();
  // Until cleared, so that a retry (should the gateway make one) meets the same answer.
  await k.upstream.serve(c.answer, { path_prefix: k.pathPrefix });
  const sent = bytesOf(c.answer).toString('utf8');
  const expected = c.expect ? bytesOf(c.expect).toString('utf8') : undefined;
  const id = requestId(c.answer.file);
  const body = { ...api.body(model, stream), ...c.request };
  const got = await send(k, api, body, id);
  if (!got) return void t.fail(`no whole answer: it broke off, or took over ${ANSWER_MS} ms`);
  const want = expectedRequest(k, apis.upstream, [apis.declared, c.upstream], callOf(body, model, stream));
  checkUpstreamRequests(t, k, upstreamRequestsOf(k, id), want);
  const failed = c.answer.status >= 400;
  if (failed) t.match(JSON.parse(sent), k.family.errorShape(c.answer.status), "the vendor's error shape");
  if (failed) checkError(t, got, c.answer, sent, expected);
  else if (expected !== undefined) checkExpected(t, got, expected, stream);
  else if (stream) checkStream(t, apis, got, sent);
  else if (apis.vendor !== api) checkTranslatedJson(t, apis, got, sent);
  else checkJson(t, api, got, sent);

  const records = await recordsOf(k.gw, id);
  t.equal(records.length, 1, 'one usage record');
  const record = records[0];
  t.match(record, { model, upstream: k.upstreamName, status: got.status }, 'for this call');
  if (failed)
    t.match(
      record,
      { prompt_tokens: 0, completion_tokens: 0, estimated: false, outcome: 'vendor_error' },
      'not billed',
    );
  else t.match(record, c.metered ?? {}, 'metered as the case says');
  if (record?.estimated && api.estimates === 'output') {
    const delivered = deliveredText(api, got, stream) !== '';
    t.equal(record.completion_tokens > 0, delivered, 'an estimate counts what was delivered');
  }
  if (record?.estimated && api.estimates === 'input')
    t.ok(record.prompt_tokens > 0, 'an estimate counts the input');

  const sdkId = requestId(`sdk.${c.answer.file}`);
  const viaSdk = await api.sdk(k.gw, model, stream, sdkId);
  const leaks = upstreamRequestsOf(k, sdkId).flatMap((r) => keyLeaks(r, k.gw.key));
  t.same(leaks, [], "through the SDK too, the client's own API key never reaches the upstream");
  // What the client's API says: the expected answer where the case gives one, else the vendor's.
  const [client, said] = expected === undefined ? [sent, apis.vendor] : [expected, api];
  const unfinished = stream && !vendorEvents(client).some(said.isEnd);
  if (failed) t.match(viaSdk, { status: c.answer.status }, "the SDK raises the upstream's status");
  else if (unfinished) t.ok('error' in viaSdk, 'the SDK raises the error or the cut');
  else {
    const text = said.visibleText(stream ? vendorEvents(client) : (JSON.parse(client) as Json));
    t.same(viaSdk, { text }, 'the SDK reads the whole answer');
  }
}

/** The text the client was sent: its stream's events', or its JSON answer's. */
function deliveredText(api: ApiProfile, got: Received, stream: boolean): string {
  if (stream)
    return parseSse(got.text)
      .map((ev) => api.eventText(ev))
      .join('');
  const body = parsed(got.text);
  return typeof body === 'object' && body !== null ? api.visibleText(body as Json) : '';
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

function checkError(t: Test, got: Received, answer: Answer, sent: string, expected?: string): void {
  t.equal(got.status, answer.status, "the client gets the upstream's status");
  t.match(got.contentType, 'application/json');
  if (expected === undefined) t.equal(got.text, sent, 'and its body, byte for byte');
  else holds(t, parsed(got.text), JSON.parse(expected), 'and the error body the case expects');
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

/** The body as JSON; a body that is not JSON fails the comparison that reads it, with its text shown. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The client's answer against the one the case expects: every member it lists, every event in order. */
function checkExpected(t: Test, got: Received, expected: string, stream: boolean): void {
  t.equal(got.status, 200);
  if (!stream) return void holds(t, parsed(got.text), JSON.parse(expected), 'the answer the case expects');
  t.match(got.contentType, 'text/event-stream');
  const events = parseSse(got.text);
  const wanted = vendorEvents(expected);
  t.same(
    events.map((ev) => ev.event ?? 'message'),
    wanted.map((ev) => ev.event ?? 'message'),
    'the events the case expects, in order',
  );
  for (const [i, want] of wanted.entries()) {
    const data = events[i]?.data ?? '';
    if (want.data === '[DONE]') t.equal(data, '[DONE]', `event ${i + 1}: the end marker`);
    else holds(t, parsed(data), JSON.parse(want.data), `event ${i + 1} holds what the case expects`);
  }
}

/** A translated JSON answer: the vendor's words in the client's API, with the usage every answer carries. */
function checkTranslatedJson(t: Test, apis: Apis, got: Received, sent: string): void {
  t.equal(got.status, 200);
  const answer = parsed(got.text);
  if (typeof answer !== 'object' || answer === null) return void t.fail(`not a JSON answer: ${got.text}`);
  const words = apis.vendor.visibleText(JSON.parse(sent) as Json);
  t.equal(apis.client.visibleText(answer as Json), words, "the vendor's words, in the client's API");
  t.ok((answer as Json).usage, 'with its usage');
}

function checkStream(t: Test, apis: Apis, got: Received, sent: string): void {
  const { client: api, vendor: vendorApi } = apis;
  t.equal(got.status, 200);
  t.match(got.contentType, 'text/event-stream');
  // The client's events as a parser without an EOF flush reads them: the end must be a whole event.
  const events = parseSse(got.text);
  const vendor = vendorEvents(sent);
  const text = (p: ApiProfile, evs: typeof events): string => evs.map((ev) => p.eventText(ev)).join('');
  t.equal(text(api, events), text(vendorApi, vendor), 'every word the vendor sent');
  const last = events.at(-1);
  const vendorError = vendor.map((ev) => vendorApi.errorOf(ev)).find((e) => e !== undefined);
  if (vendor.some(vendorApi.isEnd)) {
    t.ok(last && api.isEnd(last), "ends with the API's own end");
    t.notOk(
      events.some((ev) => api.errorOf(ev) !== undefined),
      'and no error',
    );
  } else if (vendorError && vendorApi === api) {
    t.same(last && api.errorOf(last), vendorError, "the vendor's error event ends the stream");
    t.notOk(events.some(api.isEnd), 'and never the end of a whole answer');
  } else if (vendorError) {
    const { message } = vendorError;
    t.match(
      last && api.errorOf(last),
      { message },
      "the vendor's error, in the client's API, ends the stream",
    );
    t.notOk(events.some(api.isEnd), 'and never the end of a whole answer');
  } else {
    t.match(last && api.errorOf(last), { code: 'upstream_stream_cut' }, 'a cut stream ends with an error');
    t.notOk(events.some(api.isEnd), 'and never the end of a whole answer');
  }
}
