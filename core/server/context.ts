/** The per-request state every pipeline stage sees (GatewayContext in core/contracts/context.ts says whose each field is). */
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type KeyRecord } from '../stores/key-store';
import { type TeamRecord } from '../stores/team-store';
import { type Usage } from '../contracts/usage';
import { type RequestBodies } from '../http/body';
import type { ClientAddresses } from '../http/client-address';
import type { JsonObject } from '../base/json';
import type { ServerSpan } from '../observability/tracing/server-span';
import type { GuardrailAction, Outcome, StageAnswer } from '../contracts/context';
import type { ServiceCall } from '../contracts/service';
import type { StateKey } from '../contracts/state-key';
import type { Endpoint, ServedRequest, StageReply } from '../request/served-request';
import { Errors } from '../base/errors';
import type { AnswerPhases } from '../proxy/answer-phases';
import type { Observed } from '../request/observed';
import type { RouteTarget } from '../contracts/route';

/** The one implementation of ServedRequest (core/request/served-request.ts), built by the server for each request. */
export class RequestContext implements ServedRequest {
  key: KeyRecord | undefined = undefined;
  team: TeamRecord | undefined = undefined;
  target: RouteTarget | undefined = undefined;
  usage: Usage | undefined = undefined;
  /** Whether the client asked for a stream. */
  stream = false;
  /** The status the client received; 0 until the response starts. */
  status = 0;
  outcome: Outcome = 'ok';
  /** How many pipeline stages the request entered; their finish phases run. */
  stagesReached = 0;
  answeredBy: string | undefined = undefined;
  called: ServiceCall | undefined = undefined;
  stageReply: StageReply | undefined = undefined;
  replyHeaders: Record<string, string> | undefined = undefined;
  guardrails: GuardrailAction[] | undefined = undefined;
  readonly observed: Observed;
  /** The client's headers: kept, since the proxy puts the upstream's on `req` while it forwards. */
  readonly headers: IncomingHttpHeaders;
  private raw: Promise<Buffer> | undefined;
  /** The body parsed, once asked for: every reader awaits this one promise, not a call of its own. */
  private parsed: Promise<JsonObject> | undefined;
  private slots: Map<StateKey<unknown>, unknown> | undefined;
  private address: string | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    readonly endpoint: Endpoint,
    readonly params: Readonly<Record<string, string>>,
    readonly startedAt: number,
    private readonly bodies: RequestBodies,
    private readonly addresses: ClientAddresses,
    readonly trace: ServerSpan | undefined,
    private readonly phases: AnswerPhases,
  ) {
    this.observed = {
      upstreamMs: 0,
      firstByteAt: 0,
      bytesIn: 0,
      writtenBefore: req.socket.bytesWritten,
      errorCode: undefined,
    };
    this.headers = req.headers;
  }

  /** A stream a stage watches is relayed event by event; asked only by a family that would strip what it adds. */
  get streamRelayed(): boolean {
    return this.phases.readsEvents(this);
  }

  /** A request as its client sent it; translatedContext is the view a translated one's family gets. */
  get translated(): boolean {
    return false;
  }

  /** Worked out on first use: a request refused before anything asks costs no header walk. */
  get clientAddress(): string {
    return (this.address ??= this.addresses.of(this.req));
  }

  get forwardedFor(): string | undefined {
    return this.addresses.forwardUpstream ? this.clientAddress : undefined;
  }

  /** The request body, read once under the configured size and time limits. */
  rawBody(): Promise<Buffer> {
    return (this.raw ??= this.bodies.read(this.req, this.endpoint.bodyLimit, this.observed));
  }

  /**
   * The request body parsed once as a JSON object (400 otherwise: see core/http/json-body.ts). The raw
   * bytes forwarded upstream are exactly the ones parsed here.
   */
  json(): Promise<JsonObject> {
    this.parsed ??= this.rawBody().then((raw) => this.bodies.parseJson(raw));
    return this.parsed;
  }

  rewrite(body: JsonObject): void {
    this.parsed = Promise.resolve(body);
    this.raw = Promise.resolve(Buffer.from(JSON.stringify(body)));
  }

  answer(answer: StageAnswer): void {
    if (this.stageReply || this.res.headersSent)
      throw Errors.internal(new Error('a request is answered once, before its response starts'));
    this.stageReply = { answer, stage: this.stagesReached - 1 };
  }

  check(): Promise<void> {
    return this.endpoint.check ? this.endpoint.check(this) : Promise.resolve();
  }

  get replayed(): boolean {
    return this.stageReply?.answer.replayed === true;
  }

  get<T>(key: StateKey<T>): T | undefined {
    return this.slots?.get(key) as T | undefined;
  }

  set<T>(key: StateKey<T>, value: T): void {
    (this.slots ??= new Map()).set(key, value);
  }

  guardrail(done: GuardrailAction): boolean {
    const actions = (this.guardrails ??= []);
    const same = (a: GuardrailAction): boolean =>
      a.name === done.name && a.action === done.action && a.phase === done.phase;
    if (actions.some(same)) return false;
    actions.push(done);
    this.trace?.event('gateway.guardrail', { ...done });
    return true;
  }
}
