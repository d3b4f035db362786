/**
 * The per-request state every pipeline stage sees. Fields are typed and owned: auth sets `key`,
 * model-router sets `target`, the upstream reader sets `usage`, the proxy sets `status` and `outcome`.
 * Anything a third-party middleware needs to share goes through `state` with a typed StateKey.
 */
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type KeyRecord } from './stores/key-store';
import { type Usage } from './usage';
import { type RouteTarget } from './routing/catalogue';
import { type Endpoint } from './http/endpoint';
import { type RequestBodies } from './http/body';

export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A typed, namespaced slot in `ctx.state` (STYLE.md, convention 9). */
export class StateKey<T> {
  declare private readonly type: T;
  constructor(
    readonly owner: string,
    readonly name: string,
  ) {}
}

/** How an exchange ended when it did not end cleanly; recorded with its usage. */
export type Outcome =
  'ok' | 'client_closed' | 'upstream_cut' | 'upstream_error' | 'idle_timeout' | 'shutdown' | 'key_revoked';

export class GatewayContext {
  key: KeyRecord | undefined = undefined;
  target: RouteTarget | undefined = undefined;
  usage: Usage | undefined = undefined;
  /** Whether the client asked for a stream. */
  stream = false;
  /** The status the client received; 0 until the response starts. */
  status = 0;
  outcome: Outcome = 'ok';
  /** How many pipeline stages the request entered; their finish phases run. */
  stagesReached = 0;
  private raw: Promise<Buffer> | undefined;
  private parsed: JsonObject | undefined;
  private slots: Map<StateKey<unknown>, unknown> | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    readonly endpoint: Endpoint,
    readonly params: Readonly<Record<string, string>>,
    readonly startedAt: number,
    private readonly bodies: RequestBodies,
  ) {}

  /** The request body, read once under the configured size and time limits. */
  rawBody(): Promise<Buffer> {
    this.raw ??= this.bodies.read(this.req);
    return this.raw;
  }

  /**
   * The request body parsed once as a JSON object (400 otherwise: see core/http/json-body.ts). The raw
   * bytes forwarded upstream are exactly the ones parsed here.
   */
  async json(): Promise<JsonObject> {
    this.parsed ??= this.bodies.parseJson(await this.rawBody());
    return this.parsed;
  }

  get<T>(key: StateKey<T>): T | undefined {
    return this.slots?.get(key) as T | undefined;
  }

  set<T>(key: StateKey<T>, value: T): void {
    (this.slots ??= new Map()).set(key, value);
  }
}
