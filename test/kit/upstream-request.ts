/**
 * What the upstream must receive for a case of a family's kit run, and the checks of it. The simulator
 * logs every request it gets (its path with the query string, its headers, its body parsed), and the
 * gateway passes the request id on, so the kit finds the case's request and checks:
 * - its path and query string: the entry's base path, then the options' path of the API the vendor is
 *   asked in (`chat_path`, `messages_path`, `embeddings_path`, `images_path`, `responses_path`; a video
 *   family's `submit_path`);
 * - its headers: the family's credential with the configured key and the entry's `headers:` (as
 *   `credentialHeaders` makes them from the options), a JSON content type, the `version_header` or
 *   `submit_headers` the options give; and nowhere, in a header or the path, the client's own API key;
 * - its body: the model as the kit's route names it upstream and, where the vendor speaks the client's
 *   API, every member the client sent, unchanged.
 * A family test declares what its family does otherwise (`upstream`: per family, or per case), and a
 * translating family what its vendor's body holds.
 */
import type { Test } from 'tap';
import { credentialHeaders, type UpstreamOptions } from '../../core/kit/upstream';
import type { LoggedRequest } from '../../simulator/request-log';
import { holds } from './holds';
import { KIT_UPSTREAM_MODEL, type KitGateway } from './kit-gateway';

type Json = Record<string, unknown>;

/** A header the upstream must get: this value, a value matching this pattern, or (null) none at all. */
export type HeaderRule = string | RegExp | null;

/** One call as the kit made it, for an expectation to be worked out from. */
export interface UpstreamCall {
  /** The body the client sent. */
  readonly client: Json;
  /** The model as the client named it, and as the kit's route names it to the upstream. */
  readonly model: string;
  readonly upstreamModel: string;
  readonly stream: boolean;
}

/** What a family (or one case) says the upstream receives, where it differs from the kit's defaults. */
export interface UpstreamExpectation {
  /** The path and query string under `base_url`, e.g. `/v2/chat`; a function where it depends on the call. */
  readonly path?: string | ((call: UpstreamCall) => string);
  /** Headers besides the derived ones (names in lower case), or a derived one changed; `null`: never sent. */
  readonly headers?: Readonly<Record<string, HeaderRule>>;
  /**
   * What the body holds, compared as `t.hasStrict` (a member given as undefined must be absent) with every
   * array as long as given.
   */
  readonly body?: (call: UpstreamCall) => unknown;
}

/** Every part of an expectation, decided. */
export interface ExpectedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, HeaderRule>>;
  readonly body: unknown;
}

/** Where the kit's defaults come from: the option naming the path, and what the body holds unless told. */
export interface Defaults {
  readonly method?: string;
  /** The option of the family's entry that holds the path under `base_url` (`chat_path`). */
  readonly pathOption: string | undefined;
  /** Headers the options give besides the credential (a video family's `submit_headers`). */
  readonly headers?: Readonly<Record<string, HeaderRule>>;
  readonly body: (call: UpstreamCall) => unknown;
}

/** The body a relaying family sends: the client's, with the model the route names upstream. */
export const clientBodyRenamed = (call: UpstreamCall): Json => ({
  ...call.client,
  model: call.upstreamModel,
});

/** The body a family sends where the kit knows only that it names the route's model. */
export const modelRenamed = (call: UpstreamCall): Json => ({ model: call.upstreamModel });

/** The Responses translator's chat body for the kit's request: its `input` as the one user message. */
export const RESPONSES_ON_CHAT: UpstreamExpectation = {
  body: ({ client, upstreamModel, stream }) => ({
    model: upstreamModel,
    messages: [{ role: 'user', content: client.input }],
    stream,
  }),
};

/** base64 asked of a vendor that takes only floats, its default: it is asked without `encoding_format`. */
export const FLOATS_ASKED: UpstreamExpectation = {
  body: (call) => ({ ...clientBodyRenamed(call), encoding_format: undefined }),
};

const JSON_CONTENT = /^application\/json\b/;

/** A `version_header: {name, value}` option (the messages API's), as the header it sends. */
function versionHeader(options: Readonly<Record<string, unknown>>): Record<string, string> {
  const v = options.version_header as { name?: unknown; value?: unknown } | undefined;
  return typeof v?.name === 'string' && typeof v.value === 'string' ? { [v.name]: v.value } : {};
}

/** The headers the family's options say it sends: its credential, the entry's `headers:`, its version. */
export function optionHeaders(k: KitGateway): Record<string, HeaderRule> {
  return { ...credentialHeaders(k.options as UpstreamOptions), ...versionHeader(k.options) };
}

/** The path the options give, or the error that says what to declare. */
function derivedPath(k: KitGateway, option: string | undefined): string | Error {
  const value = option === undefined ? undefined : k.options[option];
  if (typeof value === 'string') return value;
  const missing = option ? `its options have no ${option}` : 'the kit knows no option naming it';
  return new Error(`${k.family.plugin}: declare upstream.path, the path its vendor is asked on (${missing})`);
}

/**
 * The request the upstream must receive for `call`: the kit's defaults, then the family's declaration,
 * then the case's (headers merged, the rest replaced). An Error when the path can be neither derived nor
 * found declared.
 */
export function expectedRequest(
  k: KitGateway,
  defaults: Defaults,
  declared: readonly (UpstreamExpectation | undefined)[],
  call: UpstreamCall,
): ExpectedRequest | Error {
  let path: UpstreamExpectation['path'] | Error = derivedPath(k, defaults.pathOption);
  let headers: Record<string, HeaderRule> = {
    ...optionHeaders(k),
    'content-type': JSON_CONTENT,
    ...defaults.headers,
  };
  let body = defaults.body;
  for (const d of declared) {
    if (d?.path !== undefined) path = d.path;
    if (d?.headers) headers = { ...headers, ...d.headers };
    if (d?.body) body = d.body;
  }
  if (path instanceof Error) return path;
  const under = typeof path === 'function' ? path(call) : path;
  return { method: defaults.method ?? 'POST', path: k.basePath + under, headers, body: body(call) };
}

/** The call's models: the client's, and the one the kit's route gives the upstream. */
export const callOf = (client: Json, model: string, stream: boolean): UpstreamCall => ({
  client,
  model,
  upstreamModel: KIT_UPSTREAM_MODEL,
  stream,
});

/** Where the client's key shows in a request: the names of the headers holding it, and `path` if there. */
export function keyLeaks(req: LoggedRequest, key: string): string[] {
  const inHeaders = Object.entries(req.headers)
    .filter(([, value]) => [value ?? ''].flat().some((v) => v.includes(key)))
    .map(([name]) => name);
  return req.path.includes(key) ? [...inHeaders, 'path'] : inHeaders;
}

/** One header against its rule; `t.equal` and `t.match` show what came in a failure. */
function checkHeader(t: Test, got: string | string[] | undefined, name: string, rule: HeaderRule): void {
  if (rule === null) return void t.equal(got, undefined, `the upstream gets no ${name} header`);
  if (typeof rule === 'string') return void t.equal(got, rule, `the upstream's ${name} header`);
  t.match(got, rule, `the upstream's ${name} header`);
}

/** The requests the upstream received for one call against what it must receive. */
export function checkUpstreamRequests(
  t: Test,
  k: KitGateway,
  got: readonly LoggedRequest[],
  want: ExpectedRequest | Error,
): void {
  if (want instanceof Error) return void t.fail(want.message);
  // A retry, should the gateway make one, must be the same request.
  if (got.length === 0) return void t.fail('the request never reached the upstream');
  for (const req of got) {
    t.equal(req.method, want.method, "the upstream's method");
    t.equal(req.path, want.path, "the upstream's path and query string");
    for (const [name, rule] of Object.entries(want.headers)) checkHeader(t, req.headers[name], name, rule);
    t.same(keyLeaks(req, k.gw.key), [], "the client's own API key never reaches the upstream");
    holds(t, req.body, want.body, "the upstream's body", true);
  }
}

/** What the simulator logged for the request id `id` (the gateway passes the client's on upstream). */
export const upstreamRequestsOf = (k: KitGateway, id: string): LoggedRequest[] => k.gw.sim.log.list(id);

/** Whether a header holds to its rule. */
function headerHolds(got: string | string[] | undefined, rule: HeaderRule): boolean {
  if (rule === null) return got === undefined;
  if (typeof rule === 'string') return got === rule;
  return typeof got === 'string' && rule.test(got);
}

/**
 * A task's polls, which the gateway's poller makes on its own: each on the options' `task_path` with the
 * upstream's task id, with the family's credential and never the key of the client who submitted it.
 */
export function checkPolls(t: Test, k: KitGateway, polls: readonly LoggedRequest[], taskId: string): void {
  const taskPath = k.options.task_path;
  if (typeof taskPath !== 'string') return void t.fail(`${k.family.plugin}: its options have no task_path`);
  if (polls.length === 0) return void t.fail('the task was never polled');
  const path = k.basePath + taskPath.replace('{id}', encodeURIComponent(taskId));
  const paths = new Set(polls.map((p) => `${p.method} ${p.path}`));
  t.same([...paths], [`GET ${path}`], "every poll asks the upstream's task path for the task");
  for (const [name, rule] of Object.entries(optionHeaders(k))) {
    const wrong = polls.filter((p) => !headerHolds(p.headers[name], rule)).map((p) => p.headers[name]);
    t.same(wrong, [], `every poll carries the upstream's ${name} header`);
  }
  const leaks = polls.flatMap((p) => keyLeaks(p, k.gw.key));
  t.same(leaks, [], "no poll carries the client's own API key");
}
